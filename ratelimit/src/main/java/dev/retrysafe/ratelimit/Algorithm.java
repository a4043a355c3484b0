package dev.retrysafe.ratelimit;

import java.util.Locale;

/**
 * How a policy counts. The exact arithmetic of each, shared by every store, is in
 * {@code docs/rate-limits.md}; all of it is integer arithmetic in microseconds.
 */
public enum Algorithm {
    /**
     * Generic cell rate algorithm: exact token-bucket behaviour with one timestamp of state per
     * key (the theoretical arrival time). The default.
     */
    GCRA("gcra"),
    /** A bucket of {@code burst} tokens refilled at {@code quota} per {@code window}. */
    TOKEN_BUCKET("token_bucket"),
    /**
     * The sliding-window counter approximation: the previous window's count weighted by how much
     * of it still overlaps the sliding window, plus the current window's count.
     */
    SLIDING_WINDOW("sliding_window"),
    /** A counter per aligned window; allows up to twice the quota around a window boundary. */
    FIXED_WINDOW("fixed_window");

    private final String configName;

    Algorithm(String configName) {
        this.configName = configName;
    }

    /** The name used in configuration files: {@code gcra}, {@code token_bucket}, ... */
    public String configName() {
        return configName;
    }

    /** Parses a configuration name (case-insensitive). */
    public static Algorithm parse(String name) {
        String wanted = name.trim().toLowerCase(Locale.ROOT);
        for (Algorithm algorithm : values()) {
            if (algorithm.configName.equals(wanted)) {
                return algorithm;
            }
        }
        throw new IllegalArgumentException(
                "algorithm must be one of gcra, token_bucket, sliding_window, fixed_window: " + name);
    }
}
