package dev.retrysafe.ratelimit.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.retrysafe.common.MonotonicClock;
import dev.retrysafe.ratelimit.Algorithm;
import dev.retrysafe.ratelimit.Charge;
import dev.retrysafe.ratelimit.Decision;
import dev.retrysafe.ratelimit.FailMode;
import dev.retrysafe.ratelimit.Policy;
import dev.retrysafe.ratelimit.PolicyMode;
import dev.retrysafe.ratelimit.PolicyState;
import dev.retrysafe.testkit.FakeClock;
import dev.retrysafe.testkit.OutageProxy;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code fail: local} on two instances (two stores sharing one Redis under one prefix, each
 * through its own {@link OutageProxy}) with {@code fallbackInstances(2)}: while Redis is cut off
 * each instance enforces half the quota in memory, so a window admits at most what Redis counted
 * plus two halves (docs/rate-limits.md, "When Redis is unreachable"); once Redis is back, counting
 * is shared and exact again. The stores decide at a fake clock's time, so windows move only when
 * the test moves them; the breaker's cool-down is real (half a second).
 */
class LocalFallbackTest {

    private static final String PARTITION = "a:acct_1";
    private static final long QUOTA = 10;
    private static final int INSTANCES = 2;
    private static final Duration RECOVERY_BOUND = Duration.ofSeconds(10);

    private final FakeClock clock = new FakeClock(Instant.parse("2026-01-01T00:00:00Z"));
    private final Policy local = Policy.builder("local")
            .algorithm(Algorithm.FIXED_WINDOW)
            .limit(QUOTA, Duration.ofMinutes(1))
            .failMode(FailMode.LOCAL)
            .build();

    private TestRedis redis;
    private OutageProxy proxyA;
    private OutageProxy proxyB;
    private RedisRateLimitStore a;
    private RedisRateLimitStore b;

    @BeforeEach
    void twoInstances() {
        redis = TestRedis.connect();
        int redisPort = URI.create(TestRedis.URI).getPort();
        proxyA = OutageProxy.to(redisPort);
        proxyB = OutageProxy.to(redisPort);
        a = store(proxyA);
        b = store(proxyB);
    }

    private RedisRateLimitStore store(OutageProxy proxy) {
        return RedisRateLimitStore.builder()
                .redisUri("redis://127.0.0.1:" + proxy.port())
                .keyPrefix(redis.prefix())
                .timeSource(clock)
                .minimumKeyTtl(Duration.ofHours(1))
                .commandTimeout(Duration.ofMillis(500))
                .circuitBreaker(3, Duration.ofMillis(500))
                .fallbackInstances(INSTANCES)
                .build();
    }

    @AfterEach
    void closeAll() {
        for (AutoCloseable c : new AutoCloseable[] {a, b, proxyA, proxyB, redis}) {
            try {
                if (c != null) {
                    c.close();
                }
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        }
    }

    @Test
    void eachInstanceEnforcesItsShareWhileRedisIsCutOffAndCountingIsExactAgainWithinTenSecondsOfItsReturn() {
        // window 1, Redis up: 3 + 2 counted in Redis, shared
        assertThat(admitted(a, 3)).isEqualTo(3);
        assertThat(admitted(b, 2)).isEqualTo(2);
        assertThat(state(decide(a, "peek-free-key")).local()).isFalse();

        // Redis cut off mid-window: each instance admits its share, floor(10 / 2) = 5, and no more
        proxyA.cut();
        proxyB.cut();
        assertThat(admitted(a, 20)).isEqualTo(5);
        assertThat(admitted(b, 20)).isEqualTo(5);
        Decision refused = decide(a, "k");
        assertThat(refused).isInstanceOfSatisfying(Decision.Rejected.class, r -> {
            assertThat(r.refusedBy().local()).isTrue();
            assertThat(r.refusedBy().limit()).isEqualTo(QUOTA / INSTANCES);
            assertThat(r.refusedBy().policy()).isEqualTo(local);
        });
        long window1 = 3 + 2 + 5 + 5;
        assertThat(window1).isLessThanOrEqualTo(bound(5));

        // window 2, still cut off: at most the two shares, the quota
        clock.advance(Duration.ofMinutes(1));
        long window2Local = admitted(a, 20) + admitted(b, 20);
        assertThat(window2Local).isEqualTo(QUOTA);

        // Redis back: both instances count in Redis again within the bound
        proxyA.restore();
        proxyB.restore();
        long restored = MonotonicClock.nanoTime();
        await().atMost(RECOVERY_BOUND)
                .pollInterval(Duration.ofMillis(50))
                .until(() -> !state(decide(a, "probe")).local()
                        && !state(decide(b, "probe")).local());
        Duration recovery = Duration.ofNanos(MonotonicClock.nanoTime() - restored);
        assertThat(recovery).isLessThan(RECOVERY_BOUND);
        System.out.println(
                "LocalFallbackTest: counting in Redis again " + recovery.toMillis() + " ms after its return");

        // exact and shared again: Redis had counted nothing in window 2, so 10 more, alternating
        // instances, and each answer's remaining follows the other instance's spending
        long remaining = QUOTA;
        for (int i = 0; i < 10; i++) {
            Decision decision = decide(i % 2 == 0 ? a : b, "k");
            PolicyState s = state(decision);
            assertThat(decision).as("request %d", i).isInstanceOf(Decision.Allowed.class);
            assertThat(s.known()).isTrue();
            assertThat(s.local()).isFalse();
            assertThat(s.remaining()).isEqualTo(--remaining);
        }
        assertThat(decide(b, "k")).isInstanceOf(Decision.Rejected.class);
        assertThat(window2Local + 10).isLessThanOrEqualTo(bound(10));
    }

    @Test
    void whileCutOffOpenPoliciesAreUncountedClosedOnesRefuseAndShadowOnesNeverRefuse() {
        Policy open = Policy.builder("open").limit(1, Duration.ofMinutes(1)).build();
        Policy closed = Policy.builder("closed")
                .limit(1, Duration.ofMinutes(1))
                .failMode(FailMode.CLOSED)
                .build();
        Policy shadowClosed = Policy.builder("trial")
                .limit(1, Duration.ofMinutes(1))
                .failMode(FailMode.CLOSED)
                .mode(PolicyMode.SHADOW)
                .build();
        proxyA.cut();

        Decision mixed = a.decide(PARTITION, List.of(new Charge(open, "k", 1), new Charge(local, "k", 1)));
        assertThat(mixed).isInstanceOf(Decision.Allowed.class);
        assertThat(mixed.states()).extracting(PolicyState::known).containsExactly(false, true);
        assertThat(mixed.states()).extracting(PolicyState::local).containsExactly(false, true);

        assertThat(a.decide(PARTITION, List.of(new Charge(local, "k", 1), new Charge(closed, "k", 1))))
                .isInstanceOfSatisfying(
                        Decision.Unavailable.class,
                        u -> assertThat(u.failedClosed()).isEqualTo(closed));
        assertThat(a.decide(PARTITION, List.of(new Charge(open, "k", 1), new Charge(shadowClosed, "k", 1))))
                .isInstanceOf(Decision.Allowed.class);
        assertThat(a.meters().breakerOpen()).isTrue();
        assertThat(a.meters().fallbackInstances()).isEqualTo(INSTANCES);
    }

    /**
     * The documented bound for one window of a fixed-window policy: what Redis counted in it (at
     * most the quota while Redis keeps its data) plus each instance's share.
     */
    private static long bound(long countedByRedis) {
        return Math.min(countedByRedis, QUOTA) + (long) INSTANCES * Math.max(1, QUOTA / INSTANCES);
    }

    private long admitted(RedisRateLimitStore store, int requests) {
        long admitted = 0;
        for (int i = 0; i < requests; i++) {
            if (decide(store, "k") instanceof Decision.Allowed) {
                admitted++;
            }
        }
        return admitted;
    }

    private Decision decide(RedisRateLimitStore store, String key) {
        return store.decide(PARTITION, List.of(new Charge(local, key, 1)));
    }

    private static PolicyState state(Decision decision) {
        return decision.states().getFirst();
    }
}
