package dev.retrysafe.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Random;
import java.util.stream.LongStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link RetryPolicy#waitBefore} over seeded random policies: full jitter stays within
 * {@code [0, min(cap, base * 2^n)]} and fills it evenly; a {@code Retry-After} is never undercut and
 * its spread stays within its bound. The seed is in every message.
 */
class WaitBeforePropertyTest {

    private static final int SAMPLES = 4_000;

    static LongStream seeds() {
        long base = System.nanoTime();
        return LongStream.range(0, 40).map(i -> base + i);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void fullJitterStaysWithinItsBoundAndFillsIt(long seed) {
        Random random = new Random(seed);
        RetryPolicy policy = randomPolicy(random);
        String why = "seed " + seed + " (rerun with this seed to reproduce), " + policy;
        for (int retry = 0; retry < 12; retry++) {
            long bound =
                    Math.min(policy.maxDelay().toNanos(), policy.baseDelay().toNanos() * (1L << retry));
            assertThat(policy.backoffBound(retry).toNanos()).as(why).isEqualTo(bound);
            double sum = 0;
            long min = Long.MAX_VALUE;
            long max = 0;
            for (int i = 0; i < SAMPLES; i++) {
                long wait = policy.waitBefore(retry, null, random).toNanos();
                assertThat(wait).as(why + ", retry " + retry).isBetween(0L, bound);
                sum += wait;
                min = Math.min(min, wait);
                max = Math.max(max, wait);
            }
            // uniform on [0, bound]: mean bound/2 (standard error bound/sqrt(12 * SAMPLES) ~ 0.5 %),
            // and the extremes of 4,000 draws come within 1 % of the ends
            assertThat(sum / SAMPLES / bound)
                    .as(why + ", mean of retry " + retry)
                    .isBetween(0.47, 0.53);
            assertThat((double) min / bound).as(why).isLessThan(0.01);
            assertThat((double) max / bound).as(why).isGreaterThan(0.99);
        }
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void retryAfterIsAFloorAndItsSpreadIsBounded(long seed) {
        Random random = new Random(seed);
        RetryPolicy policy = randomPolicy(random);
        String why = "seed " + seed + " (rerun with this seed to reproduce), " + policy;
        for (int i = 0; i < SAMPLES; i++) {
            int retry = random.nextInt(10);
            Duration retryAfter = Duration.ofMillis(random.nextLong(60_000));
            Duration wait = policy.waitBefore(retry, retryAfter, random);
            long spread = Math.min(
                    policy.maxDelay().toNanos(),
                    Math.max(policy.backoffBound(retry).toNanos(), (long)
                            (policy.retryAfterSpread() * retryAfter.toNanos())));
            assertThat(wait)
                    .as(why + ", retry " + retry + ", Retry-After " + retryAfter)
                    .isBetween(retryAfter, retryAfter.plusNanos(spread));
        }
    }

    private static RetryPolicy randomPolicy(Random random) {
        Duration base = Duration.ofMillis(1 + random.nextInt(1_000));
        Duration cap = base.plusMillis(random.nextInt(30_000));
        return RetryPolicy.builder()
                .baseDelay(base)
                .maxDelay(cap)
                .retryAfterSpread(random.nextInt(4) == 0 ? 0 : random.nextDouble(3))
                .build();
    }
}
