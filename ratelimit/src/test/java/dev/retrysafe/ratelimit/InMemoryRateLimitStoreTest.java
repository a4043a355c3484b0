package dev.retrysafe.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.retrysafe.testkit.FakeClock;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The contract, plus what only the in-memory store has: the fast path, eviction, the key bound. */
class InMemoryRateLimitStoreTest extends RateLimitStoreContract {

    @Override
    protected RateLimitStore newStore(FakeClock clock) {
        return InMemoryRateLimitStore.builder().clock(clock).build();
    }

    @Override
    protected long keysStored() {
        return inMemory().trackedKeys();
    }

    private InMemoryRateLimitStore inMemory() {
        return (InMemoryRateLimitStore) store;
    }

    // --- the fast path ------------------------------------------------------------------------

    @Test
    void theLimiterSharesItsCountersWithDecide() {
        Policy policy = policy("p", Algorithm.GCRA, 5, Duration.ofSeconds(10));
        LocalRateLimiter limiter = inMemory().limiter(policy);

        assertThat(limiter.tryAcquire("k", 3)).isTrue();
        assertThat(allowed(decide(policy, "k", 1)).remaining()).isEqualTo(1);
        assertThat(limiter.tryAcquire("k", 2)).isFalse();
        assertThat(limiter.tryAcquireOrWaitMicros("k", 2)).isEqualTo(2_000_000);
        assertThat(limiter.tryAcquireOrWaitMicros("k", 1)).isZero();
        assertThat(limiter.tryAcquireOrWaitMicros("k", 6)).isEqualTo(10_000_000);
        assertThat(limiter.policy()).isEqualTo(policy);
    }

    @Test
    void theLimiterRejectsACostBelowOne() {
        LocalRateLimiter limiter = inMemory().limiter(policy("p", Algorithm.GCRA, 5, Duration.ofSeconds(10)));

        assertThatThrownBy(() -> limiter.tryAcquire("k", 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("cost");
    }

    @Test
    void twoChargesOfOnePolicyInOneDecisionAreABrokenContract() {
        Policy policy = policy("p", Algorithm.GCRA, 5, Duration.ofSeconds(10));

        assertThatThrownBy(
                        () -> store.decide(PARTITION, List.of(new Charge(policy, "a", 1), new Charge(policy, "b", 1))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("one charge per policy");
    }

    /** The benchmark's path allocates nothing once its keys are tracked (system clock included). */
    @Test
    void theLimiterAllocatesNothingInSteadyState() {
        InMemoryRateLimitStore systemStore =
                InMemoryRateLimitStore.builder().clock(Clock.systemUTC()).build();
        LocalRateLimiter limiter = systemStore.limiter(
                Policy.builder("p").limit(1_000_000_000, Duration.ofSeconds(1)).build());
        String[] keys = new String[1_000];
        for (int i = 0; i < keys.length; i++) {
            keys[i] = "key-" + i;
        }
        long sink = 0;
        for (int i = 0; i < 300_000; i++) {
            sink += limiter.tryAcquireOrWaitMicros(keys[i % keys.length], 1);
        }

        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        long before = threads.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < 1_000_000; i++) {
            sink += limiter.tryAcquire(keys[i % keys.length], 1) ? 0 : 1;
        }
        long allocated = threads.getCurrentThreadAllocatedBytes() - before;

        assertThat(sink).isZero();
        assertThat(allocated).as("bytes allocated by a million decisions").isLessThan(4_096);
    }

    /**
     * With time frozen, the limiter's single charges, multi-policy decisions and the limiter of
     * the other policy race on the same keys while a fourth kind of worker keeps inserting keys
     * (so segments grow under them): every key's quota is spent exactly, and the other policy is
     * charged by a decision only when both policies allowed it.
     */
    @Test
    void limiterChargesAndMultiPolicyDecisionsOnTheSameKeysKeepExactTotals() throws Exception {
        Policy hot = policy("hot", Algorithm.GCRA, 500, Duration.ofSeconds(60));
        Policy other = policy("other", Algorithm.GCRA, 1_000_000, Duration.ofSeconds(60));
        LocalRateLimiter hotLimiter = inMemory().limiter(hot);
        LocalRateLimiter otherLimiter = inMemory().limiter(other);
        String[] keys = {"a", "b", "c", "d"};
        int workers = 8;
        int attempts = 2_000;
        CountDownLatch startGate = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(workers);
        try {
            List<Future<long[]>> results = new ArrayList<>();
            for (int w = 0; w < workers; w++) {
                int kind = w % 4;
                int worker = w;
                results.add(pool.submit(() -> {
                    if (!startGate.await(10, TimeUnit.SECONDS)) {
                        throw new IllegalStateException("start gate never opened");
                    }
                    long[] allowed = new long[keys.length]; // per key: hot allowed, or other charged
                    for (int i = 0; i < attempts; i++) {
                        int k = (i + worker) % keys.length;
                        String key = keys[k];
                        boolean ok = switch (kind) {
                            case 0 -> hotLimiter.tryAcquire(key, 1);
                            case 1 ->
                                store.decide(PARTITION, List.of(new Charge(other, key, 1), new Charge(hot, key, 1)))
                                        instanceof Decision.Allowed;
                            case 2 -> otherLimiter.tryAcquire(key, 1);
                            default -> hotLimiter.tryAcquire("filler-" + worker + "-" + i, 1);
                        };
                        allowed[k] += ok ? 1 : 0;
                    }
                    return allowed;
                }));
            }
            startGate.countDown();
            long[] hotAllowed = new long[keys.length];
            long[] otherCharged = new long[keys.length];
            for (int w = 0; w < workers; w++) {
                long[] allowed = results.get(w).get(60, TimeUnit.SECONDS); // a worker's exception fails here
                for (int k = 0; k < keys.length; k++) {
                    switch (w % 4) {
                        case 0 -> hotAllowed[k] += allowed[k];
                        case 1 -> {
                            hotAllowed[k] += allowed[k];
                            otherCharged[k] += allowed[k];
                        }
                        case 2 -> otherCharged[k] += allowed[k];
                        default -> {}
                    }
                }
            }
            for (int k = 0; k < keys.length; k++) {
                assertThat(hotAllowed[k]).as("hot allowed for %s", keys[k]).isEqualTo(500);
                assertThat(peek(hot, keys[k], 1).remaining()).isZero();
                assertThat(peek(other, keys[k], 1).remaining())
                        .as("other charged for %s", keys[k])
                        .isEqualTo(1_000_000 - otherCharged[k]);
            }
        } finally {
            pool.shutdownNow();
            assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        }
    }

    // --- eviction and the key bound ----------------------------------------------------------

    @Test
    void idleKeysAreDroppedWhenTheirStripeWouldGrow() {
        Policy policy = policy("p", Algorithm.GCRA, 10, Duration.ofSeconds(1));
        LocalRateLimiter limiter = inMemory().limiter(policy);
        for (int i = 0; i < 10_000; i++) {
            limiter.tryAcquire("old-" + i, 1);
        }
        assertThat(inMemory().trackedKeys()).isEqualTo(10_000);

        clock.advance(Duration.ofMillis(100)); // every old key's tat (now + 0.1 s) has passed
        for (int i = 0; i < 10_000; i++) {
            limiter.tryAcquire("new-" + i, 1);
        }

        assertThat(inMemory().trackedKeys()).isLessThan(15_000);
    }

    @Test
    void aDroppedKeyComesBackAsAbsentLosingNothing() {
        Policy policy = policy("p", Algorithm.SLIDING_WINDOW, 3, Duration.ofSeconds(1));
        count(policy, "k", 3);
        clock.advance(Duration.ofSeconds(2)); // both windows passed: idle
        LocalRateLimiter limiter = inMemory().limiter(policy);
        for (int i = 0; i < 5_000; i++) {
            limiter.tryAcquire("filler-" + i, 1);
        }

        assertThat(count(policy, "k", 5)).isEqualTo(3);
    }

    @Test
    void aFullStoreLetsNewKeysOfFailOpenPoliciesThroughUncounted() {
        store = InMemoryRateLimitStore.builder().clock(clock).maxKeys(10).build();
        Policy policy = policy("open", Algorithm.GCRA, 5, Duration.ofSeconds(10));
        for (int i = 0; i < 10; i++) {
            allowed(decide(policy, "k" + i, 1));
        }

        Decision decision = decide(policy, "k10", 1);

        assertThat(decision).isInstanceOf(Decision.Allowed.class);
        assertThat(decision.states().getFirst().known()).isFalse();
        assertThat(inMemory().trackedKeys()).isEqualTo(10);
        assertThat(inMemory().limiter(policy).tryAcquire("k11", 1)).isTrue();
        assertThat(allowed(decide(policy, "k3", 1)).known())
                .as("tracked keys still count")
                .isTrue();
    }

    @Test
    void aFullStoreRefusesNewKeysOfFailClosedPoliciesUntilKeysGoIdle() {
        store = InMemoryRateLimitStore.builder().clock(clock).maxKeys(10).build();
        Policy closed = Policy.builder("closed")
                .limit(5, Duration.ofSeconds(10))
                .failMode(FailMode.CLOSED)
                .build();
        Policy open = Policy.builder("open").limit(5, Duration.ofSeconds(10)).build();
        for (int i = 0; i < 10; i++) {
            allowed(decide(closed, "k" + i, 1));
        }

        Decision refused = store.decide(PARTITION, List.of(new Charge(open, "x", 1), new Charge(closed, "x", 1)));

        assertThat(refused).isInstanceOf(Decision.Unavailable.class);
        Decision.Unavailable unavailable = (Decision.Unavailable) refused;
        assertThat(unavailable.failedClosed()).isEqualTo(closed);
        assertThat(unavailable.retryAfterSeconds()).isEqualTo(1);
        assertThat(inMemory().limiter(closed).tryAcquireOrWaitMicros("y", 1)).isEqualTo(1_000_000);

        clock.advance(Duration.ofSeconds(3)); // each key's single unit (2 s) has refilled
        assertThat(decide(closed, "x", 1)).isInstanceOf(Decision.Allowed.class);
        assertThat(inMemory().trackedKeys()).isLessThanOrEqualTo(10);
    }

    // --- memory -------------------------------------------------------------------------------

    /**
     * A million active GCRA keys: the tables' arrays, counted exactly, and all the heap the store
     * holds for them, key strings included (made here and kept by the store alone, shaped like an
     * account scope), measured around a full collection. The bound is "well under 200 MB";
     * this asserts 150 MB.
     */
    @Test
    void aMillionKeysWithTheirKeyStringsTakeWellUnder200Megabytes() {
        int n = 1_000_000;
        InMemoryRateLimitStore big =
                InMemoryRateLimitStore.builder().clock(clock).maxKeys(n).build();
        LocalRateLimiter limiter = big.limiter(policy("p", Algorithm.GCRA, 10, Duration.ofSeconds(1)));
        long heapBefore = usedHeapAfterGc();
        int refused = 0;
        for (int i = 0; i < n; i++) {
            // "acct_" and 16 hex digits, distinct per i (an odd multiplier is a bijection)
            String key = "acct_" + String.format("%016x", i * 0x9E3779B97F4A7C15L);
            if (!limiter.tryAcquire(key, 1)) {
                refused++;
            }
        }
        long heapAfter = usedHeapAfterGc();

        assertThat(refused).as("every key's first unit is allowed").isZero();

        assertThat(big.trackedKeys()).isEqualTo(n);
        double counted = (double) big.stateBytes() / n;
        long measured = heapAfter - heapBefore;
        System.out.printf(
                "GCRA, %d keys: %.1f bytes/key of tables counted; %.1f MB measured with the key strings%n",
                n, counted, measured / 1e6);
        assertThat(counted).isLessThanOrEqualTo(32); // a 4-byte key reference, a 4-byte hash, an 8-byte tat; <= 2 slots
        assertThat(measured)
                .as("heap held for a million keys, key strings included")
                .isLessThan(150_000_000L);
        // the keys were made here for the store alone: only the store could have kept them
        assertThat(measured).as("the key strings are in the figure").isGreaterThan(n * 50L);
        java.lang.ref.Reference.reachabilityFence(big);
    }

    @Test
    void bytesPerKeyOfEveryAlgorithm() {
        int n = 200_000;
        for (Algorithm algorithm : Algorithm.values()) {
            InMemoryRateLimitStore s =
                    InMemoryRateLimitStore.builder().clock(clock).build();
            LocalRateLimiter limiter = s.limiter(policy("p", algorithm, 10, Duration.ofSeconds(1)));
            for (int i = 0; i < n; i++) {
                limiter.tryAcquire("key-" + i, 1);
            }
            double perKey = (double) s.stateBytes() / n;
            System.out.printf("%s: %.1f bytes/key of state%n", algorithm, perKey);
            // a slot is a 4-byte key reference, a 4-byte hash and the state's longs; at most 2 slots
            // per key: 32 bytes (GCRA), 48 (two longs), 64 (sliding window's three), plus array headers
            assertThat(perKey).as(algorithm.name()).isLessThan(2 * (8 + 8 * policyStride(algorithm)) + 0.5);
        }
    }

    private static int policyStride(Algorithm algorithm) {
        return switch (algorithm) {
            case GCRA -> 1;
            case TOKEN_BUCKET, FIXED_WINDOW -> 2;
            case SLIDING_WINDOW -> 3;
        };
    }

    private static long usedHeapAfterGc() {
        var memory = java.lang.management.ManagementFactory.getMemoryMXBean();
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return memory.getHeapMemoryUsage().getUsed();
    }
}
