package dev.retrysafe.ratelimit.redis.internal;

import static dev.retrysafe.ratelimit.redis.internal.ScriptCall.Mode.CHARGE;
import static dev.retrysafe.ratelimit.redis.internal.ScriptCall.Mode.PEEK;
import static dev.retrysafe.ratelimit.redis.internal.ScriptCall.Mode.REFUND;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.retrysafe.ratelimit.Algorithm;
import dev.retrysafe.ratelimit.Charge;
import dev.retrysafe.ratelimit.Decision;
import dev.retrysafe.ratelimit.Policy;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Reading one request's figures out of a reply that may hold several. */
class ScriptReplyTest {

    private final Policy policy = Policy.builder("p")
            .algorithm(Algorithm.GCRA)
            .limit(5, Duration.ofSeconds(10))
            .build();
    private final Charge charge = new Charge(policy, "k", 1);

    @Test
    void aRequestsFiguresAreReadFromWhereTheyStart() {
        // time 7; a first request (allowed, 4 left), then ours (refused, 0 left, retry in 3 s)
        List<Object> reply = List.of(7L, 4L, 2_000_000L, 0L, 0L, 9_000_000L, 3_000_000L);

        Decision first = ScriptReply.decision(List.of(charge), reply, ScriptReply.FIRST, CHARGE);
        Decision second = ScriptReply.decision(List.of(charge), reply, 1 + ScriptReply.size(1), CHARGE);

        assertThat(first).isInstanceOf(Decision.Allowed.class);
        assertThat(first.states().getFirst().remaining()).isEqualTo(4);
        assertThat(second)
                .isInstanceOfSatisfying(
                        Decision.Rejected.class,
                        r -> assertThat(r.retryAfterSeconds()).isEqualTo(3));
        assertThat(second.states().getFirst().remaining()).isZero();
        assertThat(second.states().getFirst().nowMicros()).isEqualTo(7);
    }

    @Test
    void aRequestIsRefusedByEveryChargeThatMustWaitAndNamesTheFirst() {
        Policy other = Policy.builder("q")
                .algorithm(Algorithm.FIXED_WINDOW)
                .limit(1, Duration.ofMinutes(1))
                .build();
        List<Charge> charges = List.of(charge, new Charge(other, "k", 1));
        // the first allows (3 left), the second must wait 40 s
        List<Object> refused = List.of(7L, 3L, 2_000_000L, 0L, 0L, 40_000_000L, 40_000_000L);
        List<Object> allowed = List.of(7L, 3L, 2_000_000L, 0L, 0L, 40_000_000L, 0L);

        assertThat(ScriptReply.decision(charges, refused, ScriptReply.FIRST, CHARGE))
                .isInstanceOfSatisfying(Decision.Rejected.class, r -> {
                    assertThat(r.refusedBy().policy()).isEqualTo(other);
                    assertThat(r.retryAfterSeconds()).isEqualTo(40);
                });
        // a peek and a refund are allowed whatever their charges say; a charge that need not wait allows
        assertThat(ScriptReply.decision(charges, refused, ScriptReply.FIRST, PEEK))
                .isInstanceOf(Decision.Allowed.class);
        assertThat(ScriptReply.decision(charges, refused, ScriptReply.FIRST, REFUND))
                .isInstanceOf(Decision.Allowed.class);
        assertThat(ScriptReply.decision(charges, allowed, ScriptReply.FIRST, CHARGE))
                .isInstanceOf(Decision.Allowed.class);
    }

    @Test
    void aRequestTheScriptCouldNotDecideFailsWithTheScriptsWords() {
        List<Object> reply = List.of(7L, -1L, "WRONGTYPE Operation against a key".getBytes(StandardCharsets.UTF_8), 0L);
        assertThatThrownBy(() -> ScriptReply.decision(List.of(charge), reply, ScriptReply.FIRST, CHARGE))
                .isInstanceOf(ScriptReply.RequestFailed.class)
                .hasMessage("WRONGTYPE Operation against a key");
    }

    @Test
    void aReplyTooShortForTheRequestIsAnError() {
        assertThatThrownBy(() -> ScriptReply.decision(List.of(charge), List.of(7L, 1L, 4L), ScriptReply.FIRST, CHARGE))
                .isInstanceOf(IllegalStateException.class);
    }
}
