package dev.retrysafe.bench.ratelimit;

import dev.retrysafe.ratelimit.Policy;
import io.github.bucket4j.Bandwidth;
import io.github.bucket4j.BucketConfiguration;
import io.github.resilience4j.ratelimiter.RateLimiterConfig;
import java.time.Duration;
import java.util.Random;

/**
 * The one limit every library is measured under, and the keys it is applied to.
 *
 * <p>The benchmarks measure the <em>allowed</em> path: a rate of 1 unit per 100 ms per key
 * (GCRA's emission interval and Bucket4j's greedy refill alike) with a burst of 10^10, so that
 * no decision in a run is refused, yet every tracked key stays active (its GCRA theoretical
 * arrival time stays ahead of the clock) and is never dropped as idle. Resilience4j cannot
 * express a burst beyond one period's permits; it gets {@link Integer#MAX_VALUE} permits per
 * second, which is never exhausted either.
 */
final class Limits {

    /** Units per period, and the period: 10 per second. */
    static final long RATE_UNITS = 1;

    static final Duration RATE_PERIOD = Duration.ofMillis(100);
    /** The most units at once: far beyond what a run spends on one key. */
    static final long BURST = 10_000_000_000L;

    /** The seed that shuffles the keys, so that every library sees them in the same order. */
    private static final long KEY_SEED = 20261202L;

    private Limits() {}

    /** Retrysafe: GCRA (the default algorithm). */
    static Policy policy() {
        return Policy.builder("bench")
                .limit(RATE_UNITS, RATE_PERIOD)
                .burst(BURST)
                .build();
    }

    /** Bucket4j: a token bucket of {@link #BURST} refilled greedily at the same rate. */
    static BucketConfiguration bucketConfiguration() {
        return BucketConfiguration.builder().addLimit(bandwidth()).build();
    }

    static Bandwidth bandwidth() {
        return Bandwidth.builder()
                .capacity(BURST)
                .refillGreedy(RATE_UNITS, RATE_PERIOD)
                .build();
    }

    /** Resilience4j: never waits, never runs out within a run (see the class comment). */
    static RateLimiterConfig resilience4jConfig() {
        return RateLimiterConfig.custom()
                .limitForPeriod(Integer.MAX_VALUE)
                .limitRefreshPeriod(Duration.ofSeconds(1))
                .timeoutDuration(Duration.ZERO)
                .build();
    }

    /** {@code count} distinct keys shaped like API-key scopes, in a fixed shuffled order. */
    static String[] keys(int count) {
        String[] keys = new String[count];
        for (int i = 0; i < count; i++) {
            keys[i] = "key_" + Integer.toString(i, 36) + "_" + Integer.toHexString(i * 0x9E3779B9);
        }
        Random random = new Random(KEY_SEED);
        for (int i = count - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            String t = keys[i];
            keys[i] = keys[j];
            keys[j] = t;
        }
        return keys;
    }
}
