package dev.retrysafe.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.retrysafe.ratelimit.Charge;
import dev.retrysafe.ratelimit.Decision;
import dev.retrysafe.ratelimit.FailMode;
import dev.retrysafe.ratelimit.Policy;
import dev.retrysafe.ratelimit.PolicyMode;
import dev.retrysafe.ratelimit.PolicyState;
import dev.retrysafe.ratelimit.RateLimitStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The outcome a counting store reports for each policy of each kind of decision. */
class DecisionOutcomesTest {

    private static final long NOW = 1_767_225_600_000_000L;

    private final Policy key =
            Policy.builder("key").limit(10, Duration.ofMinutes(1)).build();
    private final Policy trial = Policy.builder("trial")
            .limit(1, Duration.ofMinutes(1))
            .mode(PolicyMode.SHADOW)
            .build();
    private final Policy open =
            Policy.builder("open").limit(10, Duration.ofMinutes(1)).build();
    private final Policy local = Policy.builder("local")
            .limit(10, Duration.ofMinutes(1))
            .failMode(FailMode.LOCAL)
            .build();
    private final List<String> heard = new ArrayList<>();

    @Test
    void anAllowedRequestReportsEachPolicyByWhatItDid() {
        Decision allowed = new Decision.Allowed(List.of(
                state(key, 0, true, false),
                state(trial, 60_000_000, true, false), // would have refused
                PolicyState.unknown(open, "k", NOW),
                state(local, 0, true, true)));

        decide(allowed);

        assertThat(heard)
                .containsExactly("key=allowed", "trial=shadow_rejected", "open=failed_open", "local=local_fallback");
    }

    @Test
    void aRefusedRequestReportsOnlyThePolicyThatRefused() {
        PolicyState refusing = state(local, 5_000_000, true, true);
        decide(new Decision.Rejected(refusing, 5, List.of(state(key, 0, true, false), refusing)));
        decide(new Decision.Unavailable(key, 2, List.of(PolicyState.unknown(key, "k", NOW))));

        assertThat(heard).containsExactly("local=rejected", "key=unavailable");
    }

    private void decide(Decision decision) {
        RateLimitStore store = DecisionListener.counting(new Fixed(decision), new DecisionListener() {
            @Override
            public void claimed(String outcome) {}

            @Override
            public void decided(String policy, String outcome) {
                heard.add(policy + "=" + outcome);
            }

            @Override
            public void refunded(String policy) {}
        });
        store.decide("a:acct_1", List.of(new Charge(key, "k", 1)));
    }

    private static PolicyState state(Policy policy, long retryAfterMicros, boolean known, boolean local) {
        return new PolicyState(policy, "k", policy.quota(), 0, 0, retryAfterMicros, NOW, known, local);
    }

    /** A store that answers every decision with one decision. */
    private record Fixed(Decision decision) implements RateLimitStore {
        @Override
        public Decision decide(String partition, List<Charge> charges) {
            return decision;
        }

        @Override
        public Decision peek(String partition, List<Charge> charges) {
            return decision;
        }

        @Override
        public Decision refund(String partition, List<Charge> charges) {
            return decision;
        }

        @Override
        public void close() {}
    }
}
