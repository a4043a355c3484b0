package dev.retrysafe.server.config;

import java.time.Duration;

/**
 * The simulated bank behind payments, with failure injection.
 *
 * @param latency how long a new charge takes, 0..60s
 * @param declineRate share of new charges declined (payment {@code failed}), 0..1
 * @param errorRate share of new charges the bank cannot process (503, retryable), 0..1
 */
public record BankConfig(Duration latency, double declineRate, double errorRate) {

    /** Checks every value. */
    public BankConfig {
        ConfigException.check(
                !latency.isNegative() && latency.compareTo(Duration.ofMinutes(1)) <= 0,
                "bank.latency",
                "must be between 0ms and 60s, was " + Durations.format(latency));
        ConfigException.check(
                declineRate >= 0 && declineRate <= 1,
                "bank.decline_rate",
                "must be between 0 and 1, was " + declineRate);
        ConfigException.check(
                errorRate >= 0 && errorRate <= 1, "bank.error_rate", "must be between 0 and 1, was " + errorRate);
    }
}
