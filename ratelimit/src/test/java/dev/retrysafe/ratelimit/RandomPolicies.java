package dev.retrysafe.ratelimit;

import java.time.Duration;
import java.util.Random;

/** Random policies for property tests: small quotas, windows from a millisecond to a minute. */
final class RandomPolicies {

    private RandomPolicies() {}

    static Policy policy(Random r, Algorithm algorithm) {
        long quota = 1 + r.nextInt(r.nextBoolean() ? 5 : 50);
        long windowMicros = switch (r.nextInt(3)) {
            case 0 -> 1_000 + r.nextInt(10_000);
            case 1 -> 1_000_000L * (1 + r.nextInt(10));
            default -> 1_000 + r.nextLong(60_000_000L);
        };
        long burst = r.nextBoolean() ? quota : 1 + r.nextInt((int) (3 * quota));
        return Policy.builder(algorithm.configName())
                .algorithm(algorithm)
                .limit(quota, Duration.ofNanos(windowMicros * 1000))
                .burst(burst)
                .build();
    }
}
