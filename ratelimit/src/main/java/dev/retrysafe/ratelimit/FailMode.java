package dev.retrysafe.ratelimit;

import java.util.Locale;

/** What a policy does when its counter store cannot be reached. */
public enum FailMode {
    /** Let the request through uncounted: availability over the limit. */
    OPEN,
    /** Refuse the request with {@code 503} and {@code Retry-After}: the limit over availability. */
    CLOSED,
    /**
     * Count in this process instead, each instance enforcing its share of the quota (a store that
     * counts in this process anyway, such as {@link InMemoryRateLimitStore}, treats it as
     * {@link #OPEN}): the Redis store's {@code fallbackInstances} says how many shares the quota
     * is cut into. The bound on what gets through is in {@code docs/rate-limits.md} ("When Redis
     * is unreachable").
     */
    LOCAL;

    /** Parses {@code open}, {@code closed} or {@code local} (case-insensitive). */
    public static FailMode parse(String name) {
        return switch (name.trim().toLowerCase(Locale.ROOT)) {
            case "open" -> OPEN;
            case "closed" -> CLOSED;
            case "local" -> LOCAL;
            default -> throw new IllegalArgumentException("fail must be open, closed or local: " + name);
        };
    }
}
