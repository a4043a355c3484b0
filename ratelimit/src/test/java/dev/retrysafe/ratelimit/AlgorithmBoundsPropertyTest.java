package dev.retrysafe.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.retrysafe.testkit.FakeClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.BiConsumer;
import java.util.stream.LongStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Each algorithm never allows more than its definition permits, for random request times and
 * costs. A failing case names its seed; rerun it alone by putting that seed in {@link #seeds()}.
 *
 * <ul>
 *   <li>GCRA and token bucket: over any interval {@code [t1, t2]}, allowed units
 *       {@code <= B + (t2 - t1) * Q / W} (checked as {@code units*W <= B*W + (t2-t1)*Q}, exact).</li>
 *   <li>Fixed window: allowed units per epoch-aligned window {@code <= Q}.</li>
 *   <li>Sliding window: at every allowed request, {@code prev*(W-e)/W + cur <= Q} (the estimate
 *       it promises), hence over any span of W microseconds, which meets at most two windows,
 *       allowed units {@code <= 2Q}.</li>
 *   <li>Refunds (of any cost, absurd ones too, among random charges): after one, a key never
 *       allows more units at once than a fresh key; and a charge refunded at the instant it was
 *       made changes no figure (a replay costs nothing).</li>
 * </ul>
 */
class AlgorithmBoundsPropertyTest {

    private static final long BASE_SEED = Long.getLong("retrysafe.test.seed", 0xB0_0DL);
    private static final Instant START = Instant.parse("2026-01-01T00:00:00Z");
    private static final String PARTITION = "a:acct_1";

    static LongStream seeds() {
        return LongStream.range(0, 150).map(i -> BASE_SEED + i);
    }

    /** One allowed request: when (µs since the epoch) and how many units. */
    private record Allowed(long at, long cost) {}

    /** Random requests on one key; returns the allowed ones in time order. */
    private static List<Allowed> run(Random r, Policy policy) {
        FakeClock clock = new FakeClock(START.plusNanos(1000L * r.nextLong(policy.windowMicros())));
        InMemoryRateLimitStore store =
                InMemoryRateLimitStore.builder().clock(clock).build();
        LocalRateLimiter limiter = store.limiter(policy);
        long limitCost = Math.max(policy.burst(), policy.quota());
        List<Allowed> allowed = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            clock.advance(Duration.ofNanos(gap(r, policy) * 1000));
            long cost = 1 + r.nextLong(limitCost + 1);
            long now = micros(clock.instant());
            if (limiter.tryAcquire("k", cost)) {
                allowed.add(new Allowed(now, cost));
            }
        }
        return allowed;
    }

    /** Microseconds to the next request: mostly bursts of simultaneous requests, sometimes gaps up to two windows. */
    private static long gap(Random r, Policy policy) {
        return switch (r.nextInt(4)) {
            case 0 -> 0;
            case 1 -> r.nextLong(policy.windowMicros() / 10 + 1);
            case 2 -> r.nextLong(policy.windowMicros() + 1);
            default -> r.nextLong(2 * policy.windowMicros() + 1);
        };
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void bucketsNeverAllowMoreThanTheBurstPlusTheRefill(long seed) {
        Random r = new Random(seed);
        for (Algorithm algorithm : List.of(Algorithm.GCRA, Algorithm.TOKEN_BUCKET)) {
            Policy policy = RandomPolicies.policy(r, algorithm);
            List<Allowed> allowed = run(r, policy);
            long w = policy.windowMicros();
            for (int i = 0; i < allowed.size(); i++) {
                long units = 0;
                for (int j = i; j < allowed.size(); j++) {
                    units += allowed.get(j).cost();
                    long span = allowed.get(j).at() - allowed.get(i).at();
                    if (units * w > policy.burst() * w + span * policy.quota()) { // assert only on failure: n^2 checks
                        assertThat(units * w)
                                .as(
                                        "seed %d, %s: %d units in [%d, %d]",
                                        seed,
                                        policy,
                                        units,
                                        allowed.get(i).at(),
                                        allowed.get(j).at())
                                .isLessThanOrEqualTo(policy.burst() * w + span * policy.quota());
                    }
                }
            }
        }
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void aFixedWindowNeverAllowsMoreThanTheQuotaPerWindow(long seed) {
        Random r = new Random(seed);
        Policy policy = RandomPolicies.policy(r, Algorithm.FIXED_WINDOW);
        List<Allowed> allowed = run(r, policy);
        long w = policy.windowMicros();
        long window = Long.MIN_VALUE;
        long units = 0;
        for (Allowed a : allowed) {
            if (a.at() / w != window) {
                window = a.at() / w;
                units = 0;
            }
            units += a.cost();
            assertThat(units).as("seed %d, %s: window %d", seed, policy, window).isLessThanOrEqualTo(policy.quota());
        }
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void aSlidingWindowKeepsItsEstimateWithinTheQuota(long seed) {
        Random r = new Random(seed);
        Policy policy = RandomPolicies.policy(r, Algorithm.SLIDING_WINDOW);
        List<Allowed> allowed = run(r, policy);
        long w = policy.windowMicros();
        long q = policy.quota();
        for (int i = 0; i < allowed.size(); i++) {
            Allowed a = allowed.get(i);
            long k = a.at() / w;
            long e = a.at() - k * w;
            long cur = 0;
            long prev = 0;
            long lastSpan = 0;
            for (int j = 0; j <= i; j++) {
                long kj = allowed.get(j).at() / w;
                cur += kj == k ? allowed.get(j).cost() : 0;
                prev += kj == k - 1 ? allowed.get(j).cost() : 0;
                lastSpan += allowed.get(j).at() > a.at() - w ? allowed.get(j).cost() : 0;
            }
            assertThat(prev * (w - e) + cur * w)
                    .as("seed %d, %s: estimate at %d", seed, policy, a.at())
                    .isLessThanOrEqualTo(q * w);
            assertThat(lastSpan)
                    .as("seed %d, %s: units in the W before %d", seed, policy, a.at())
                    .isLessThanOrEqualTo(2 * q);
        }
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void aRefundNeverLeavesMoreThanAFreshKeyAllows(long seed) {
        afterEachStep(seed, (history, step) -> {
            Random r = history.r;
            long cost = r.nextInt(8) == 0 ? Long.MAX_VALUE / 2 : 1 + r.nextLong(2 * history.largest);
            history.store.refund(PARTITION, history.charge(cost));
            if (r.nextInt(4) == 0) {
                // drains the key: part of the history from here on
                assertThat(history.unitsAtOnce(history.key))
                        .as("seed %d, %s, step %d: units at once after refunding %d", seed, history.policy, step, cost)
                        .isLessThanOrEqualTo(history.unitsAtOnce("fresh-" + step));
            }
        });
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void aChargeRefundedAtOnceChangesNoFigure(long seed) {
        afterEachStep(seed, (history, step) -> {
            long cost = 1 + history.r.nextLong(history.largest);
            List<Decision> before = history.peeks(cost);
            if (history.store.decide(PARTITION, history.charge(cost)) instanceof Decision.Allowed) {
                Decision refunded = history.store.refund(PARTITION, history.charge(cost));

                assertThat(refunded)
                        .as("seed %d, %s, step %d", seed, history.policy, step)
                        .isEqualTo(before.get(1));
                assertThat(history.peeks(cost))
                        .as("seed %d, %s, step %d: cost %d charged and refunded", seed, history.policy, step, cost)
                        .isEqualTo(before);
            }
        });
    }

    /** For each algorithm, a random history of 100 charges, refunds and gaps; {@code check} after each step. */
    private static void afterEachStep(long seed, BiConsumer<History, Integer> check) {
        Random r = new Random(seed);
        for (Algorithm algorithm : Algorithm.values()) {
            History history = new History(r, RandomPolicies.policy(r, algorithm));
            for (int step = 0; step < 100; step++) {
                history.step();
                check.accept(history, step);
            }
        }
    }

    /** One key of one policy in an in-memory store, moved through random charges, refunds and time. */
    private static final class History {
        final Random r;
        final Policy policy;
        final FakeClock clock;
        final InMemoryRateLimitStore store;
        final String key = "k";
        /** The largest cost an absent key allows. */
        final long largest;

        History(Random r, Policy policy) {
            this.r = r;
            this.policy = policy;
            this.clock = new FakeClock(START.plusNanos(1000L * r.nextLong(policy.windowMicros())));
            this.store = InMemoryRateLimitStore.builder().clock(clock).build();
            this.largest = policy.algorithm() == Algorithm.GCRA || policy.algorithm() == Algorithm.TOKEN_BUCKET
                    ? policy.burst()
                    : policy.quota();
        }

        /** Moves time on, then charges or (one time in three) refunds a random cost. */
        void step() {
            clock.advance(Duration.ofNanos(gap(r, policy) * 1000));
            long cost = 1 + r.nextLong(largest + 1);
            if (r.nextInt(3) == 0) {
                store.refund(PARTITION, charge(cost));
            } else {
                store.decide(PARTITION, charge(cost));
            }
        }

        List<Charge> charge(long cost) {
            return List.of(new Charge(policy, key, cost));
        }

        /** What a peek of 1 unit, of {@code cost} and of the largest cost reports now. */
        List<Decision> peeks(long cost) {
            return List.of(
                    store.peek(PARTITION, charge(1)),
                    store.peek(PARTITION, charge(cost)),
                    store.peek(PARTITION, charge(largest)));
        }

        /** How many single units {@code k} allows now, one after the other, until one is refused. */
        long unitsAtOnce(String k) {
            long units = 0;
            while (units <= largest
                    && store.decide(PARTITION, List.of(new Charge(policy, k, 1))) instanceof Decision.Allowed) {
                units++;
            }
            return units;
        }
    }

    private static long micros(Instant instant) {
        return instant.getEpochSecond() * 1_000_000L + instant.getNano() / 1000;
    }
}
