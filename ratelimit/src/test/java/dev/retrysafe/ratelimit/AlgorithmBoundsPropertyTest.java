package dev.retrysafe.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.retrysafe.testkit.FakeClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
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
 * </ul>
 */
class AlgorithmBoundsPropertyTest {

    private static final long BASE_SEED = Long.getLong("retrysafe.test.seed", 0xB0_0DL);
    private static final Instant START = Instant.parse("2026-01-01T00:00:00Z");

    static LongStream seeds() {
        return LongStream.range(0, 150).map(i -> BASE_SEED + i);
    }

    /** One allowed request: when (µs since the epoch) and how many units. */
    private record Allowed(long at, long cost) {
    }

    /** Random requests on one key; returns the allowed ones in time order. */
    private static List<Allowed> run(Random r, Policy policy) {
        FakeClock clock = new FakeClock(START.plusNanos(1000L * r.nextLong(policy.windowMicros())));
        InMemoryRateLimitStore store = InMemoryRateLimitStore.builder().clock(clock).build();
        LocalRateLimiter limiter = store.limiter(policy);
        long limitCost = Math.max(policy.burst(), policy.quota());
        List<Allowed> allowed = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            // mostly bursts of simultaneous requests, sometimes gaps up to two windows
            long gap = switch (r.nextInt(4)) {
                case 0 -> 0;
                case 1 -> r.nextLong(policy.windowMicros() / 10 + 1);
                case 2 -> r.nextLong(policy.windowMicros() + 1);
                default -> r.nextLong(2 * policy.windowMicros() + 1);
            };
            clock.advance(Duration.ofNanos(gap * 1000));
            long cost = 1 + r.nextLong(limitCost + 1);
            long now = micros(clock.instant());
            if (limiter.tryAcquire("k", cost)) {
                allowed.add(new Allowed(now, cost));
            }
        }
        return allowed;
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
                                .as("seed %d, %s: %d units in [%d, %d]", seed, policy, units, allowed.get(i).at(),
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
            assertThat(prev * (w - e) + cur * w).as("seed %d, %s: estimate at %d", seed, policy, a.at())
                    .isLessThanOrEqualTo(q * w);
            assertThat(lastSpan).as("seed %d, %s: units in the W before %d", seed, policy, a.at())
                    .isLessThanOrEqualTo(2 * q);
        }
    }

    private static long micros(Instant instant) {
        return instant.getEpochSecond() * 1_000_000L + instant.getNano() / 1000;
    }
}
