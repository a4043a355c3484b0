package dev.retrysafe.ratelimit.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.retrysafe.ratelimit.Charge;
import dev.retrysafe.ratelimit.Decision;
import dev.retrysafe.ratelimit.PolicyState;
import dev.retrysafe.testkit.FakeClock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * Runs {@code decide.lua} through a store on the shared Redis at times the test sets: t = 0 is
 * 2026-01-01T00:00:00Z, which every window of the tests (whole seconds dividing a day) starts at.
 */
abstract class ScriptTestBase {

    static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
    static final long T0_MICROS = T0.getEpochSecond() * 1_000_000L;
    static final String PARTITION = "a:acct_1";

    TestRedis redis;
    FakeClock clock;
    RedisRateLimitStore store;

    @BeforeEach
    void openStore() {
        redis = TestRedis.connect();
        clock = new FakeClock(T0);
        store = redis.store().timeSource(clock).build();
    }

    @AfterEach
    void closeStore() {
        try {
            store.close();
        } finally {
            redis.close();
        }
    }

    /** Sets the time to {@code micros} after t = 0. */
    void at(long micros) {
        clock.set(T0.plus(Duration.ofNanos(micros * 1000)));
    }

    Decision decide(Charge... charges) {
        return store.decide(PARTITION, List.of(charges));
    }

    Decision peek(Charge... charges) {
        return store.peek(PARTITION, List.of(charges));
    }

    Decision refund(Charge... charges) {
        return store.refund(PARTITION, List.of(charges));
    }

    /** Decides {@code times} times and counts the allowed ones. */
    int allowedOf(int times, Charge charge) {
        int allowed = 0;
        for (int i = 0; i < times; i++) {
            if (decide(charge) instanceof Decision.Allowed) {
                allowed++;
            }
        }
        return allowed;
    }

    static void assertFigures(PolicyState state, long remaining, long reset, long retryAfter) {
        assertThat(state.known()).as("known").isTrue();
        assertThat(new long[] {state.remaining(), state.resetMicros(), state.retryAfterMicros()})
                .as("remaining, reset, retryAfter of %s", state.policy().name())
                .containsExactly(remaining, reset, retryAfter);
    }

    static PolicyState only(Decision decision) {
        assertThat(decision.states()).hasSize(1);
        return decision.states().getFirst();
    }

    /** The remaining lifetime of {@code key} in ms, checked to be set. */
    long pttl(String key) {
        Long ttl = redis.redis().pttl(key);
        assertThat(ttl).as("PTTL of %s", key).isNotNull().isPositive();
        return ttl;
    }

    String baseKey(String policy, String algorithmTag) {
        return redis.prefix() + "{" + PARTITION + "}:" + policy + ":" + algorithmTag + ":key-1";
    }
}
