package dev.retrysafe.ratelimit.redis;

import static dev.retrysafe.ratelimit.redis.Charges.policy;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.retrysafe.common.MonotonicClock;
import dev.retrysafe.ratelimit.Algorithm;
import dev.retrysafe.ratelimit.Charge;
import dev.retrysafe.ratelimit.Decision;
import dev.retrysafe.ratelimit.FailMode;
import dev.retrysafe.ratelimit.Policy;
import dev.retrysafe.ratelimit.PolicyState;
import dev.retrysafe.testkit.FakeClock;
import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * A private Redis that is killed, frozen and restarted under a live store. Timing bounds are
 * generous (a second for what takes milliseconds): they catch a decision that waits on a dead
 * Redis, not a slow machine.
 */
class RedisOutageTest extends PrivateRedisTest {

    private static final Duration PROMPT = Duration.ofSeconds(1);
    private static final Duration COOL_DOWN = Duration.ofSeconds(10);
    private static final String PARTITION = "a:acct_1";

    private final Policy open = policy("open", Algorithm.GCRA, 2, Duration.ofHours(1), FailMode.OPEN);
    private final Policy closed = policy("closed", Algorithm.FIXED_WINDOW, 2, Duration.ofHours(1), FailMode.CLOSED);
    private final FakeClock breakerClock = new FakeClock();

    /** Whether the store has its direct connection ({@link RedisOutageWithoutDirectConnectionTest} has not). */
    protected boolean directConnection() {
        return true;
    }

    private RedisRateLimitStore newStore() {
        return RedisRateLimitStore.builder()
                .redisUri(server.uri())
                .directConnection(directConnection())
                .keyPrefix("rs-test:")
                .commandTimeout(Duration.ofMillis(100))
                .circuitBreaker(3, COOL_DOWN)
                .breakerClock(breakerClock)
                .build();
    }

    @Test
    void aKilledRedisFailsOpenPromptlyThenClosedPoliciesAreUnavailableAndARestartIsPickedUp() {
        store = newStore();
        assertThat(decide(open).states().getFirst().known()).isTrue();

        server.kill();

        // closed breaker: each call fails fast (the connection is gone), three of them open it
        failOpenThreeTimesOpeningTheBreaker(() -> decide(open));

        // open breaker: no call at all
        for (int i = 0; i < 100; i++) {
            assertThat(timed(() -> decide(open), PROMPT).states().getFirst().known())
                    .isFalse();
        }
        Decision unavailable = timed(() -> decide(open, closed), PROMPT);
        assertThat(unavailable).isInstanceOfSatisfying(Decision.Unavailable.class, u -> {
            assertThat(u.failedClosed()).isEqualTo(closed);
            assertThat(u.retryAfterSeconds()).isEqualTo(COOL_DOWN.toSeconds());
            assertThat(u.states()).extracting(PolicyState::known).containsExactly(false, false);
        });
        breakerClock.advance(Duration.ofMillis(9_500));
        assertThat(((Decision.Unavailable) decide(closed)).retryAfterSeconds()).isEqualTo(1);

        // back (and empty): nothing reaches it while the breaker is open
        server.restart();
        assertThat(decide(open).states().getFirst().known()).isFalse();
        assertThat(evalshaCalls()).isZero();

        // each time the cool-down is over one probe goes; Lettuce reconnects on its own
        awaitEnforced();
        assertThat(decide(closed)).isInstanceOf(Decision.Allowed.class);
        assertThat(decide(closed)).isInstanceOf(Decision.Allowed.class);
        assertThat(decide(closed)).isInstanceOf(Decision.Rejected.class);
    }

    @Test
    void aRefundWhileRedisIsDownGoesByTheFailModesLikeAPeekAndNeverThrows() {
        store = newStore();
        assertThat(decide(open).states().getFirst().remaining()).isEqualTo(1);

        server.kill();

        // refunds fail fast, let fail-open policies through unknown, and open the breaker as decisions do
        failOpenThreeTimesOpeningTheBreaker(() -> refund(open));
        assertThat(timed(() -> refund(open, closed), PROMPT)).isInstanceOfSatisfying(Decision.Unavailable.class, u -> {
            assertThat(u.failedClosed()).isEqualTo(closed);
            assertThat(u.states()).extracting(PolicyState::known).containsExactly(false, false);
        });

        // back (and empty): once a probe closes the breaker, refunds are counted again
        server.restart();
        awaitEnforced();
        assertThat(refund(open).states().getFirst().remaining()).isEqualTo(2);
        assertThat(refund(open).states().getFirst().remaining())
                .as("never past a full budget")
                .isEqualTo(2);
    }

    @Test
    void aFrozenRedisCostsEachDecisionAtMostTheCommandTimeout() {
        store = newStore();
        assertThat(decide(open).states().getFirst().known()).isTrue();

        server.freeze();
        try {
            for (int i = 0; i < 3; i++) {
                long started = MonotonicClock.nanoTime();
                Decision decision = timed(() -> decide(open, closed), PROMPT);
                long millis = (MonotonicClock.nanoTime() - started) / 1_000_000;
                assertThat(decision).isInstanceOf(Decision.Unavailable.class);
                // it did wait for Redis: a timeout, not a refusal
                assertThat(millis).isGreaterThanOrEqualTo(90);
            }
            assertThat(store.breakerOpen()).isTrue();
            assertThat(timed(() -> decide(open), PROMPT).states().getFirst().known())
                    .isFalse();
        } finally {
            server.thaw();
        }
        awaitEnforced();
    }

    @Test
    void aStoreBuiltWhileRedisIsDownFailsOpenAndConnectsLater() {
        server.kill();
        store = newStore();

        assertThat(timed(() -> decide(open), PROMPT).states().getFirst().known())
                .isFalse();
        assertThat(timed(() -> decide(closed), PROMPT)).isInstanceOf(Decision.Unavailable.class);

        server.restart();
        awaitEnforced();
        assertThat(decide(open)).isInstanceOf(Decision.Allowed.class);
        assertThat(decide(open)).isInstanceOf(Decision.Rejected.class);
    }

    @Test
    void aFlushedScriptIsLoadedAgain() {
        store = newStore();
        assertThat(decide(open).states().getFirst().known()).isTrue();

        try (TestRedis admin = TestRedis.connect(server.uri())) {
            admin.redis().scriptFlush();
            Decision decision = decide(open);
            assertThat(decision).isInstanceOf(Decision.Allowed.class);
            assertThat(decision.states().getFirst().known()).isTrue();
            assertThat(decision.states().getFirst().remaining()).isZero();
            assertThat(admin.redis().scriptExists(dev.retrysafe.ratelimit.redis.internal.DecideScript.sha1()))
                    .containsExactly(true);
        }
        assertThat(store.breakerOpen()).isFalse();
    }

    /** Three calls of {@code call} on a fail-open policy: each fails fast and unknown; then the breaker is open. */
    private void failOpenThreeTimesOpeningTheBreaker(Supplier<Decision> call) {
        for (int i = 0; i < 3; i++) {
            Decision decision = timed(call, PROMPT);
            assertThat(decision).isInstanceOf(Decision.Allowed.class);
            assertThat(decision.states()).extracting(PolicyState::known).containsExactly(false);
        }
        assertThat(store.breakerOpen()).isTrue();
    }

    /** Until a decision is known again, moving the breaker's clock past each cool-down. */
    private void awaitEnforced() {
        await().atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(20))
                .until(() -> {
                    breakerClock.advance(COOL_DOWN);
                    return decide(open).states().getFirst().known();
                });
        assertThat(store.breakerOpen()).isFalse();
    }

    private long evalshaCalls() {
        try (TestRedis admin = TestRedis.connect(server.uri())) {
            String stats = admin.redis().info("commandstats");
            return stats.lines()
                    .filter(line -> line.startsWith("cmdstat_evalsha:"))
                    .count();
        }
    }

    private Decision decide(Policy... policies) {
        return store.decide(PARTITION, charges(policies));
    }

    private Decision refund(Policy... policies) {
        return store.refund(PARTITION, charges(policies));
    }

    private static List<Charge> charges(Policy... policies) {
        return java.util.Arrays.stream(policies)
                .map(p -> new Charge(p, "key-1", 1))
                .toList();
    }

    private static Decision timed(Supplier<Decision> decision, Duration bound) {
        long started = MonotonicClock.nanoTime();
        Decision result = decision.get();
        assertThat(Duration.ofNanos(MonotonicClock.nanoTime() - started)).isLessThan(bound);
        return result;
    }
}
