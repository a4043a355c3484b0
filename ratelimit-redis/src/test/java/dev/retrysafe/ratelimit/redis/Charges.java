package dev.retrysafe.ratelimit.redis;

import dev.retrysafe.ratelimit.Algorithm;
import dev.retrysafe.ratelimit.Charge;
import dev.retrysafe.ratelimit.FailMode;
import dev.retrysafe.ratelimit.Policy;
import java.time.Duration;

/** Short ways to write the policies and charges of the tests. */
final class Charges {

    private Charges() {}

    static Policy policy(String name, Algorithm algorithm, long quota, Duration window) {
        return Policy.builder(name).algorithm(algorithm).limit(quota, window).build();
    }

    static Policy policy(String name, Algorithm algorithm, long quota, Duration window, FailMode failMode) {
        return Policy.builder(name)
                .algorithm(algorithm)
                .limit(quota, window)
                .failMode(failMode)
                .build();
    }

    static Charge charge(Policy policy) {
        return new Charge(policy, "key-1", 1);
    }

    static Charge charge(Policy policy, long cost) {
        return new Charge(policy, "key-1", cost);
    }

    /** Five per ten seconds, the seeds' policy. */
    static Policy fivePerTenSeconds(Algorithm algorithm) {
        return policy(algorithm.configName(), algorithm, 5, Duration.ofSeconds(10));
    }
}
