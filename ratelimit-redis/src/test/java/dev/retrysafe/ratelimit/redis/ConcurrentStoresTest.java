package dev.retrysafe.ratelimit.redis;

import static dev.retrysafe.ratelimit.redis.Charges.policy;
import static org.assertj.core.api.Assertions.assertThat;

import dev.retrysafe.ratelimit.Algorithm;
import dev.retrysafe.ratelimit.Charge;
import dev.retrysafe.ratelimit.Decision;
import dev.retrysafe.ratelimit.Policy;
import dev.retrysafe.testkit.FakeClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Several instances (each its own client and connection) and many threads spend one budget at
 * one frozen moment: exactly the quota is allowed, whatever the interleaving.
 */
class ConcurrentStoresTest {

    private static final int STORES = 4;
    private static final int THREADS_PER_STORE = 4;
    private static final int DECISIONS_PER_THREAD = 100;
    private static final long QUOTA = 537;

    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void exactlyTheQuotaIsAllowed(Algorithm algorithm) throws Exception {
        FakeClock frozen = new FakeClock();
        // at a frozen time each decision is its own call
        spendOneBudget(
                policy("shared", algorithm, QUOTA, Duration.ofHours(1)),
                redis -> redis.store()
                        .timeSource(frozen)
                        .commandTimeout(Duration.ofSeconds(5))
                        .build());
    }

    /**
     * By Redis's clock, decisions made at once may share calls (a standalone Redis; how many do
     * depends on timing, and ScriptBatchesTest shows the sharing itself): every one still sees
     * those before it. Algorithms without windows aligned to the clock, over a day, so that
     * the seconds the test takes neither refill a unit (one per 161 s) nor cross a window.
     */
    @ParameterizedTest
    @EnumSource(
            value = Algorithm.class,
            names = {"GCRA", "TOKEN_BUCKET"})
    void exactlyTheQuotaIsAllowedWhenDecisionsShareCalls(Algorithm algorithm) throws Exception {
        spendOneBudget(
                policy("shared", algorithm, QUOTA, Duration.ofDays(1)),
                redis -> redis.store().commandTimeout(Duration.ofSeconds(5)).build());
    }

    private static void spendOneBudget(Policy policy, Function<TestRedis, RedisRateLimitStore> newStore)
            throws Exception {
        Charge charge = new Charge(policy, "key-1", 1);
        List<RedisRateLimitStore> stores = new ArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(STORES * THREADS_PER_STORE);
        try (TestRedis redis = TestRedis.connect()) {
            for (int i = 0; i < STORES; i++) {
                // a generous timeout: this test is about atomicity, not latency
                stores.add(newStore.apply(redis));
            }
            CountDownLatch start = new CountDownLatch(1);
            List<Future<Integer>> workers = new ArrayList<>();
            for (RedisRateLimitStore store : stores) {
                for (int t = 0; t < THREADS_PER_STORE; t++) {
                    workers.add(pool.submit(() -> {
                        start.await();
                        int allowed = 0;
                        for (int d = 0; d < DECISIONS_PER_THREAD; d++) {
                            Decision decision = store.decide("a:shared", List.of(charge));
                            assertThat(decision.states().getFirst().known())
                                    .as("Redis answered")
                                    .isTrue();
                            if (decision instanceof Decision.Allowed) {
                                allowed++;
                            }
                        }
                        return allowed;
                    }));
                }
            }
            start.countDown();
            int allowed = 0;
            for (Future<Integer> worker : workers) {
                // a worker's failure fails the test here
                allowed += worker.get(60, TimeUnit.SECONDS);
            }
            assertThat(allowed).isEqualTo(QUOTA);
            assertThat(stores.getFirst()
                            .peek("a:shared", List.of(charge))
                            .states()
                            .getFirst()
                            .remaining())
                    .isZero();
        } finally {
            pool.shutdownNow();
            assertThat(pool.awaitTermination(10, TimeUnit.SECONDS))
                    .as("workers stopped")
                    .isTrue();
            stores.forEach(RedisRateLimitStore::close);
        }
    }
}
