package dev.retrysafe.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.retrysafe.testkit.FakeClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What every {@link RateLimitStore} must do, written once and run against each backend (in
 * memory here; Redis in {@code retrysafe-ratelimit-redis} through this module's test-jar).
 *
 * <p>A backend implements {@link #newStore(FakeClock)}: an empty store whose "now" is the given
 * clock's instant at microsecond precision (a Redis store passes it to its script as an explicit
 * time). Tests move time only through {@link #clock}. The store is closed after each test.
 * Every figure below is in {@code docs/rate-limits.md}'s arithmetic; the last test compares the
 * backend decision by decision with the in-memory store, the reference.
 */
@SuppressWarnings("exports") // FakeClock comes from the testkit, a test-only class-path jar
public abstract class RateLimitStoreContract {

    /** A window boundary of every window used here (epoch-aligned windows divide it). */
    protected static final Instant START = Instant.parse("2026-01-01T00:00:00Z");

    protected static final String PARTITION = "a:acct_1";
    private static final long BASE_SEED = Long.getLong("retrysafe.test.seed", 0x5EED_3L);

    protected FakeClock clock;
    protected RateLimitStore store;

    /** For subclasses, one per backend. */
    protected RateLimitStoreContract() {}

    /** An empty store reading its time from {@code clock}. */
    protected abstract RateLimitStore newStore(FakeClock clock);

    /** How many keys (counters) {@link #store} holds now, over every policy. */
    protected abstract long keysStored();

    @BeforeEach
    void openStore() {
        clock = new FakeClock(START);
        store = newStore(clock);
    }

    @AfterEach
    void closeStore() {
        store.close();
    }

    // --- the seeds' boundary case -------------------------------------------------------------

    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void fivePerTenSecondsAroundAWindowBoundary(Algorithm algorithm) {
        Policy policy = policy("boundary", algorithm, 5, Duration.ofSeconds(10));

        clock.set(START.plusMillis(9_900));
        int allowed = count(policy, "k", 10);
        clock.set(START.plusMillis(10_100));
        allowed += count(policy, "k", 10);

        // fixed window: 5 + 5 (two windows); GCRA and token bucket: 0.2 s refill = 0.1 unit;
        // sliding window: the previous window still weighs 5 * 9.9/10 = 4.95, and 4.95 + 1 > 5
        assertThat(allowed).isEqualTo(algorithm == Algorithm.FIXED_WINDOW ? 10 : 5);
    }

    // --- hand-computed figures, 5 per 10 s ----------------------------------------------------

    @ParameterizedTest
    @EnumSource(
            value = Algorithm.class,
            names = {"GCRA", "TOKEN_BUCKET"})
    void bucketFigures(Algorithm algorithm) {
        Policy policy = policy("p", algorithm, 5, Duration.ofSeconds(10));

        PolicyState first = allowed(decide(policy, "k", 1));
        assertThat(first.remaining()).isEqualTo(4);
        assertThat(first.resetMicros()).isEqualTo(2_000_000); // one unit refills in W/Q = 2 s
        assertThat(first.retryAfterMicros()).isZero();
        assertThat(first.nowMicros()).isEqualTo(START.toEpochMilli() * 1000);

        count(policy, "k", 3);
        PolicyState fifth = allowed(decide(policy, "k", 1));
        assertThat(fifth.remaining()).isZero();
        assertThat(fifth.resetMicros()).isEqualTo(10_000_000);
        assertThat(fifth.used()).isEqualTo(5);

        Decision.Rejected sixth = rejected(decide(policy, "k", 1));
        assertThat(sixth.refusedBy().retryAfterMicros()).isEqualTo(2_000_000);
        assertThat(sixth.retryAfterSeconds()).isEqualTo(2);
        assertThat(sixth.refusedBy().resetMicros()).isEqualTo(10_000_000);

        clock.advance(Duration.ofSeconds(3));
        PolicyState later = peek(policy, "k", 2);
        assertThat(later.remaining()).isEqualTo(1); // 1.5 units refilled
        assertThat(later.resetMicros()).isEqualTo(7_000_000);
        assertThat(later.retryAfterMicros()).isEqualTo(1_000_000); // 2 units need 4 s of refill
    }

    @Test
    void fixedWindowFigures() {
        Policy policy = policy("p", Algorithm.FIXED_WINDOW, 5, Duration.ofSeconds(10));
        clock.set(START.plusSeconds(4));

        PolicyState first = allowed(decide(policy, "k", 1));
        assertThat(first.remaining()).isEqualTo(4);
        assertThat(first.resetMicros()).isEqualTo(6_000_000);

        count(policy, "k", 4);
        Decision.Rejected sixth = rejected(decide(policy, "k", 1));
        assertThat(sixth.refusedBy().remaining()).isZero();
        assertThat(sixth.refusedBy().retryAfterMicros()).isEqualTo(6_000_000);
        assertThat(sixth.retryAfterSeconds()).isEqualTo(6);

        clock.set(START.plusSeconds(10));
        assertThat(allowed(decide(policy, "k", 5)).remaining()).isZero();
    }

    @Test
    void slidingWindowFigures() {
        Policy policy = policy("p", Algorithm.SLIDING_WINDOW, 5, Duration.ofSeconds(10));
        clock.set(START.plusSeconds(4));

        count(policy, "k", 4);
        PolicyState fifth = allowed(decide(policy, "k", 1));
        assertThat(fifth.remaining()).isZero();
        assertThat(fifth.resetMicros()).isEqualTo(16_000_000); // until this window stops weighing

        // next window, at e = 2 s: 5 * 8/10 + 1 = 5 fits; so 6 s to its end plus 2 s
        Decision.Rejected sixth = rejected(decide(policy, "k", 1));
        assertThat(sixth.refusedBy().retryAfterMicros()).isEqualTo(8_000_000);

        clock.set(START.plusSeconds(11));
        PolicyState next = peek(policy, "k", 1);
        assertThat(next.remaining()).isZero(); // 5 * 9/10 = 4.5 used
        assertThat(next.retryAfterMicros()).isEqualTo(1_000_000);
        assertThat(next.resetMicros()).isEqualTo(9_000_000);

        clock.set(START.plusSeconds(12));
        assertThat(allowed(decide(policy, "k", 1)).remaining()).isZero();
    }

    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void aCostAboveTheBurstNeverFitsAndWaitsAWindow(Algorithm algorithm) {
        Policy policy = policy("p", algorithm, 5, Duration.ofSeconds(10));

        Decision.Rejected rejected = rejected(decide(policy, "k", 6));

        assertThat(rejected.refusedBy().retryAfterMicros()).isEqualTo(10_000_000);
        assertThat(rejected.refusedBy().remaining()).isEqualTo(5);
        assertThat(allowed(decide(policy, "k", 5)).remaining()).isZero();
    }

    @Test
    void aBurstAboveTheQuotaAllowsTheBurstAtOnceButShowsAtMostTheQuota() {
        Policy policy =
                Policy.builder("p").limit(5, Duration.ofSeconds(10)).burst(8).build();

        PolicyState first = allowed(decide(policy, "k", 1));
        assertThat(first.remaining()).isEqualTo(5); // 7 available, clamped to the quota
        assertThat(count(policy, "k", 10)).isEqualTo(7);
    }

    // --- several policies, one decision -------------------------------------------------------

    @Test
    void aRequestRefusedByOnePolicyChargesNoneOfTheOthers() {
        Policy wide = policy("wide", Algorithm.GCRA, 5, Duration.ofSeconds(10));
        Policy narrow = policy("narrow", Algorithm.FIXED_WINDOW, 2, Duration.ofSeconds(10));
        List<Charge> both = List.of(new Charge(wide, "k", 1), new Charge(narrow, "k", 1));

        assertThat(store.decide(PARTITION, both)).isInstanceOf(Decision.Allowed.class);
        assertThat(store.decide(PARTITION, both)).isInstanceOf(Decision.Allowed.class);
        Decision third = store.decide(PARTITION, both);

        assertThat(third).isInstanceOf(Decision.Rejected.class);
        assertThat(((Decision.Rejected) third).refusedBy().policy()).isEqualTo(narrow);
        assertThat(peek(wide, "k", 1).remaining()).isEqualTo(3); // two charges, not three
        assertThat(third.states()).extracting(s -> s.policy().name()).containsExactly("wide", "narrow");
    }

    @Test
    void aRejectionNamesTheFirstRefusingPolicyAndWaitsForTheSlowest() {
        Policy fast = policy("fast", Algorithm.FIXED_WINDOW, 1, Duration.ofSeconds(2));
        Policy slow = policy("slow", Algorithm.FIXED_WINDOW, 1, Duration.ofSeconds(60));
        List<Charge> both = List.of(new Charge(fast, "k", 1), new Charge(slow, "k", 1));
        store.decide(PARTITION, both);

        Decision.Rejected rejected = rejected(store.decide(PARTITION, both));

        assertThat(rejected.refusedBy().policy()).isEqualTo(fast);
        assertThat(rejected.retryAfterSeconds()).isEqualTo(60);
    }

    @Test
    void peekChargesNothingAndTellsWhenTheCostWouldFit() {
        Policy policy = policy("p", Algorithm.GCRA, 5, Duration.ofSeconds(10));
        count(policy, "k", 5);

        Decision peeked = store.peek(PARTITION, List.of(new Charge(policy, "k", 1)));
        Decision again = store.peek(PARTITION, List.of(new Charge(policy, "k", 1)));

        assertThat(peeked).isInstanceOf(Decision.Allowed.class).isEqualTo(again);
        assertThat(peeked.states().getFirst().retryAfterMicros()).isEqualTo(2_000_000);
        assertThat(peek(policy, "unseen", 1).remaining()).isEqualTo(5);
    }

    @Test
    void noChargesIsAllowedWithNoStates() {
        assertThat(store.decide(PARTITION, List.of())).isEqualTo(new Decision.Allowed(List.of()));
    }

    @Test
    void keysAndPoliciesCountApart() {
        Policy one = policy("one", Algorithm.GCRA, 1, Duration.ofSeconds(10));
        Policy two = policy("two", Algorithm.GCRA, 1, Duration.ofSeconds(10));

        assertThat(count(one, "a", 2) + count(one, "b", 2) + count(two, "a", 2)).isEqualTo(3);
    }

    // --- refunds ------------------------------------------------------------------------------

    /**
     * Charging n and refunding k leaves what charging n - k leaves: 4 units charged at t = 4 s and
     * 3 of them given back a second later, against a key charged 1 unit at t = 4 s.
     */
    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void aRefundGivesBackWhatItsChargeTook(Algorithm algorithm) {
        Policy policy = policy("p", algorithm, 5, Duration.ofSeconds(10));
        clock.set(START.plusSeconds(4));
        assertThat(count(policy, "refunded", 4)).isEqualTo(4);
        assertThat(count(policy, "reference", 1)).isEqualTo(1);
        clock.advance(Duration.ofSeconds(1));

        PolicyState refunded = refund(policy, "refunded", 3);

        assertThat(refunded.remaining()).isEqualTo(4);
        assertSameFigures(refunded, peek(policy, "reference", 3));
        assertThat(count(policy, "refunded", 6))
                .isEqualTo(count(policy, "reference", 6))
                .isEqualTo(4);
    }

    /**
     * A policy is counted by its name and algorithm: when its limits change (a reload, a plan's
     * scaled copy) its counters carry on under the new limits (a window's count in units; GCRA's
     * in time, 4 units of 6 s being 2 of 12 s); another algorithm counts apart.
     */
    @Test
    void aPolicyWhoseLimitsChangeKeepsItsCounters() {
        Policy before = policy("reloaded", Algorithm.FIXED_WINDOW, 10, Duration.ofMinutes(1));
        Policy lowered = policy("reloaded", Algorithm.FIXED_WINDOW, 5, Duration.ofMinutes(1));
        Policy otherAlgorithm = policy("reloaded", Algorithm.GCRA, 5, Duration.ofMinutes(1));
        Policy gcraRaised = policy("reloaded", Algorithm.GCRA, 10, Duration.ofMinutes(1));

        assertThat(count(before, "k", 4)).isEqualTo(4);

        assertThat(count(lowered, "k", 5)).as("4 of the 5 already spent").isEqualTo(1);
        assertThat(count(otherAlgorithm, "k", 10))
                .as("another algorithm, other counters")
                .isEqualTo(5);
    }

    @Test
    void aRefundOfSeveralChargesGivesEachOfThemBackInOneStep() {
        Policy wide = policy("wide", Algorithm.GCRA, 5, Duration.ofSeconds(10));
        Policy narrow = policy("narrow", Algorithm.FIXED_WINDOW, 2, Duration.ofSeconds(10));
        List<Charge> both = List.of(new Charge(wide, "k", 1), new Charge(narrow, "k", 1));
        store.decide(PARTITION, both);
        store.decide(PARTITION, both);
        assertThat(store.decide(PARTITION, both)).isInstanceOf(Decision.Rejected.class);

        Decision refunded = store.refund(PARTITION, both);

        assertThat(refunded).isInstanceOf(Decision.Allowed.class);
        assertThat(refunded.states()).extracting(PolicyState::remaining).containsExactly(4L, 1L);
        assertThat(store.decide(PARTITION, both)).isInstanceOf(Decision.Allowed.class);
        assertThat(peek(wide, "k", 1).remaining()).isEqualTo(3);
    }

    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void aRefundOfAnAbsentKeyCreatesNothingAndReportsAFullBudget(Algorithm algorithm) {
        Policy policy = policy("p", algorithm, 5, Duration.ofSeconds(10));
        clock.set(START.plusSeconds(4));

        long keysAfterRefund = refundToAFullBudget(policy, "never-charged", 2);

        assertThat(keysAfterRefund).isZero();
    }

    /** One unit charged, five given back: a full budget, and a key whose state is absent again is gone. */
    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void aRefundNeverGivesMoreThanAFullBudget(Algorithm algorithm) {
        Policy policy = policy("p", algorithm, 5, Duration.ofSeconds(10));
        clock.set(START.plusSeconds(4));
        allowed(decide(policy, "k", 1));
        assertThat(keysStored()).isEqualTo(1);

        long keysAfterRefund = refundToAFullBudget(policy, "k", 5);

        assertThat(keysAfterRefund)
                .as("a state equal to an absent key's is not kept")
                .isZero();
    }

    /** Once time has given the units back, a refund gives nothing more (GCRA and bucket: wholly refilled). */
    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void aRefundAfterTheStateRecoveredByItselfGivesNothingMore(Algorithm algorithm) {
        Policy policy = policy("p", algorithm, 5, Duration.ofSeconds(10));
        clock.set(START.plusSeconds(4));
        PolicyState charged = allowed(decide(policy, "k", 4));
        clock.advance(Duration.ofNanos(1000 * charged.resetMicros())); // whole again, or the window is over

        refundToAFullBudget(policy, "k", 4);
    }

    /** 4 units charged at t = 4 s; by t = 10 s three have refilled, so of 3 given back only 1 counts. */
    @ParameterizedTest
    @EnumSource(
            value = Algorithm.class,
            names = {"GCRA", "TOKEN_BUCKET"})
    void aRefundAfterPartOfTheChargeRefilledGivesBackOnlyTheRest(Algorithm algorithm) {
        Policy policy = policy("p", algorithm, 5, Duration.ofSeconds(10));
        clock.set(START.plusSeconds(4));
        allowed(decide(policy, "k", 4));
        clock.set(START.plusSeconds(10));
        assertThat(peek(policy, "k", 1).remaining()).isEqualTo(4);

        refundToAFullBudget(policy, "k", 3);
    }

    /**
     * A charge of a window that is over is gone with it: a refund in the next window, which holds
     * no charge yet, changes nothing there and adds nothing to its budget.
     */
    @Test
    void aFixedWindowRefundAfterItsWindowEndedChangesNothingInTheNewWindow() {
        Policy policy = policy("p", Algorithm.FIXED_WINDOW, 5, Duration.ofSeconds(10));
        clock.set(START.plusMillis(9_900));
        assertThat(count(policy, "k", 5)).isEqualTo(5);
        clock.set(START.plusMillis(10_100));

        refundToAFullBudget(policy, "k", 5);
    }

    /**
     * A sliding-window refund takes what the current window's count cannot cover off the previous
     * window's: 4 units at t = 4 s and 1 at t = 12 s, then 3 given back, leave what 2 units at
     * t = 4 s leave (the documented approximation: the store does not know when the units were charged).
     */
    @Test
    void aSlidingWindowRefundTakesWhatTheCurrentCountCannotCoverOffThePreviousOne() {
        Policy policy = policy("p", Algorithm.SLIDING_WINDOW, 5, Duration.ofSeconds(10));
        clock.set(START.plusSeconds(4));
        assertThat(count(policy, "refunded", 4)).isEqualTo(4);
        assertThat(count(policy, "reference", 2)).isEqualTo(2);
        clock.set(START.plusSeconds(12));
        allowed(decide(policy, "refunded", 1)); // 4 * 8/10 + 1 = 4.2 fits

        PolicyState refunded = refund(policy, "refunded", 3);

        // the previous window's 2 weigh 2 * 8/10: floor(5 - 1.6) = 3 left, whole once it slid out
        assertThat(refunded.remaining()).isEqualTo(3);
        assertThat(refunded.resetMicros()).isEqualTo(8_000_000);
        assertSameFigures(refunded, peek(policy, "reference", 3));
    }

    /**
     * Threads charging and refunding one key at once lose no update: with time frozen, what is
     * left is exactly the quota less the charges that were kept (the others were each given back).
     */
    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void concurrentChargesAndRefundsOnOneKeyKeepExactTotals(Algorithm algorithm) throws Exception {
        Policy policy = policy("hot", algorithm, 100, Duration.ofSeconds(60));
        List<Charge> charges = List.of(new Charge(policy, "k", 1));

        List<Integer> keptByThread = onThreadsAtOnce(8, t -> () -> {
            boolean refunds = t % 2 == 0;
            int kept = 0;
            for (int i = 0; i < 40; i++) {
                if (store.decide(PARTITION, charges) instanceof Decision.Allowed) {
                    if (!refunds) {
                        kept++;
                    } else if (!(store.refund(PARTITION, charges) instanceof Decision.Allowed)) {
                        throw new IllegalStateException("a refund was not allowed");
                    }
                }
            }
            return kept;
        });

        int kept = keptByThread.stream().mapToInt(Integer::intValue).sum();
        assertThat(kept).isPositive().isLessThanOrEqualTo(100);
        assertThat(peek(policy, "k", 1).remaining()).isEqualTo(100 - kept);
    }

    // --- retry-after is honest ----------------------------------------------------------------

    static LongStream seeds() {
        return LongStream.range(0, 40).map(i -> BASE_SEED + i);
    }

    /**
     * When nothing else happens, a refused request fits exactly {@code retryAfter} later and not
     * one microsecond sooner, for every algorithm.
     */
    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void retryAfterIsExact(long seed) {
        Random r = new Random(seed);
        for (Algorithm algorithm : Algorithm.values()) {
            Policy policy = RandomPolicies.policy(r, algorithm);
            String key = "honest-" + algorithm.configName();
            for (int i = 0; i < 60; i++) {
                clock.advance(Duration.ofNanos(1000L * r.nextLong(policy.windowMicros() / 2 + 1)));
                long cost = 1 + r.nextLong(Math.min(policy.quota(), policy.burst()));
                Decision decision = store.decide(PARTITION, List.of(new Charge(policy, key, cost)));
                if (decision instanceof Decision.Rejected rejected) {
                    long wait = rejected.refusedBy().retryAfterMicros();
                    clock.advance(Duration.ofNanos(1000L * (wait - 1)));
                    assertThat(peek(policy, key, cost).retryAfterMicros())
                            .as("seed %d, %s, request %d: 1 µs before retry-after %d", seed, policy, i, wait)
                            .isPositive();
                    clock.advance(Duration.ofNanos(1000L));
                    assertThat(peek(policy, key, cost).retryAfterMicros())
                            .as("seed %d, %s, request %d: at retry-after %d", seed, policy, i, wait)
                            .isZero();
                }
            }
        }
    }

    // --- the reference ------------------------------------------------------------------------

    /**
     * Random requests (decisions, peeks and refunds) under random policies give the in-memory
     * store's decisions exactly: the arithmetic is shared (trivially true for the in-memory store
     * itself).
     */
    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void decidesLikeTheInMemoryStoreDecisionByDecision(long seed) {
        Random r = new Random(seed);
        FakeClock referenceClock = new FakeClock(START);
        try (RateLimitStore reference =
                InMemoryRateLimitStore.builder().clock(referenceClock).build()) {
            List<Policy> policies = new ArrayList<>();
            for (Algorithm algorithm : Algorithm.values()) {
                policies.add(RandomPolicies.policy(r, algorithm));
            }
            for (int i = 0; i < 200; i++) {
                Duration step = Duration.ofNanos(1000L * r.nextLong(2_000_000));
                clock.advance(step);
                referenceClock.advance(step);
                List<Charge> charges = new ArrayList<>();
                for (Policy policy : policies) {
                    if (r.nextInt(3) > 0) {
                        charges.add(new Charge(policy, "key" + r.nextInt(3), 1 + r.nextLong(policy.burst() + 1)));
                    }
                }
                int roll = r.nextInt(10);
                Decision expected = peekRefundOrDecide(reference, roll, charges);
                Decision actual = peekRefundOrDecide(store, roll, charges);
                assertThat(actual)
                        .as("seed %d, request %d (roll %d): %s", seed, i, roll, charges)
                        .isEqualTo(expected);
            }
        }
    }

    /** A peek for a roll of 0 or 1, a refund for 2 or 3, a decision for any other. */
    private static Decision peekRefundOrDecide(RateLimitStore on, int roll, List<Charge> charges) {
        if (roll < 2) {
            return on.peek(PARTITION, charges);
        }
        return roll < 4 ? on.refund(PARTITION, charges) : on.decide(PARTITION, charges);
    }

    // --- concurrency --------------------------------------------------------------------------

    /** With time frozen, threads hammering one key get exactly the quota between them. */
    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void concurrentDecisionsOnOneKeyAllowExactlyTheQuota(Algorithm algorithm) throws Exception {
        Policy policy = policy("hot", algorithm, 100, Duration.ofSeconds(60));
        Policy other = policy("other", Algorithm.GCRA, 1_000_000, Duration.ofSeconds(60));

        List<Integer> allowedByThread = onThreadsAtOnce(8, t -> () -> {
            List<Charge> charges = t % 2 == 0
                    ? List.of(new Charge(other, "k", 1), new Charge(policy, "k", 1))
                    : List.of(new Charge(policy, "k", 1));
            int allowed = 0;
            for (int i = 0; i < 50; i++) {
                if (store.decide(PARTITION, charges) instanceof Decision.Allowed) {
                    allowed++;
                }
            }
            return allowed;
        });

        int allowed = 0;
        int allowedWithOther = 0;
        for (int t = 0; t < allowedByThread.size(); t++) {
            allowed += allowedByThread.get(t);
            allowedWithOther += t % 2 == 0 ? allowedByThread.get(t) : 0;
        }
        assertThat(allowed).isEqualTo(100);
        assertThat(peek(other, "k", 1).remaining())
                .as("the other policy is charged only when both allow")
                .isEqualTo(1_000_000 - allowedWithOther);
    }

    /**
     * Runs {@code worker.apply(t)} on each of {@code threads} threads at once, behind a start gate,
     * and returns their results in thread order; a worker's exception fails the test.
     */
    private static List<Integer> onThreadsAtOnce(int threads, IntFunction<Callable<Integer>> worker) throws Exception {
        CountDownLatch startGate = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<Integer>> results = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                Callable<Integer> work = worker.apply(t);
                results.add(pool.submit(() -> {
                    if (!startGate.await(10, TimeUnit.SECONDS)) {
                        throw new IllegalStateException("start gate never opened");
                    }
                    return work.call();
                }));
            }
            startGate.countDown();
            List<Integer> values = new ArrayList<>();
            for (Future<Integer> result : results) {
                values.add(result.get(60, TimeUnit.SECONDS)); // a worker's exception fails the test here
            }
            return values;
        } finally {
            pool.shutdownNow();
            assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        }
    }

    // --- helpers ------------------------------------------------------------------------------

    protected static Policy policy(String name, Algorithm algorithm, long quota, Duration window) {
        return Policy.builder(name).algorithm(algorithm).limit(quota, window).build();
    }

    protected Decision decide(Policy policy, String key, long cost) {
        return store.decide(PARTITION, List.of(new Charge(policy, key, cost)));
    }

    protected PolicyState peek(Policy policy, String key, long cost) {
        Decision decision = store.peek(PARTITION, List.of(new Charge(policy, key, cost)));
        assertThat(decision).isInstanceOf(Decision.Allowed.class);
        return decision.states().getFirst();
    }

    /** Refunds {@code cost} of {@code key}, which must be allowed; the state after it. */
    protected PolicyState refund(Policy policy, String key, long cost) {
        Decision decision = store.refund(PARTITION, List.of(new Charge(policy, key, cost)));
        assertThat(decision).isInstanceOf(Decision.Allowed.class);
        return decision.states().getFirst();
    }

    /**
     * Refunds {@code cost} of {@code key}, which must leave a full budget: a key never charged's,
     * and no more (then spent, to see). Returns {@link #keysStored()} right after the refund.
     */
    private long refundToAFullBudget(Policy policy, String key, long cost) {
        PolicyState refunded = refund(policy, key, cost);
        long keys = keysStored();
        assertThat(refunded.remaining()).isEqualTo(policy.quota());
        assertSameFigures(refunded, peek(policy, "unseen", cost));
        assertThat(count(policy, key, (int) policy.quota() + 1))
                .as("units at once after the refund")
                .isEqualTo(policy.quota());
        return keys;
    }

    /** The figures of two states of one policy (of different keys, say) are the same. */
    protected static void assertSameFigures(PolicyState actual, PolicyState expected) {
        assertThat(new long[] {actual.remaining(), actual.resetMicros(), actual.retryAfterMicros(), actual.nowMicros()})
                .as("remaining, reset, retryAfter, now of %s, like %s", actual.key(), expected.key())
                .containsExactly(
                        expected.remaining(),
                        expected.resetMicros(),
                        expected.retryAfterMicros(),
                        expected.nowMicros());
        assertThat(actual.known()).isEqualTo(expected.known()).isTrue();
    }

    /** How many of {@code requests} single-unit requests are allowed. */
    protected int count(Policy policy, String key, int requests) {
        int allowed = 0;
        for (int i = 0; i < requests; i++) {
            if (decide(policy, key, 1) instanceof Decision.Allowed) {
                allowed++;
            }
        }
        return allowed;
    }

    protected static PolicyState allowed(Decision decision) {
        assertThat(decision).isInstanceOf(Decision.Allowed.class);
        return decision.states().getFirst();
    }

    protected static Decision.Rejected rejected(Decision decision) {
        assertThat(decision).isInstanceOf(Decision.Rejected.class);
        return (Decision.Rejected) decision;
    }
}
