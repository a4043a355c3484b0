package dev.retrysafe.ratelimit;

import java.util.Locale;

/** What a policy does when its counter store cannot be reached. */
public enum FailMode {
    /** Let the request through uncounted: availability over the limit. */
    OPEN,
    /** Refuse the request with {@code 503} and {@code Retry-After}: the limit over availability. */
    CLOSED;

    /** Parses {@code open} or {@code closed} (case-insensitive). */
    public static FailMode parse(String name) {
        return switch (name.trim().toLowerCase(Locale.ROOT)) {
            case "open" -> OPEN;
            case "closed" -> CLOSED;
            default -> throw new IllegalArgumentException("fail must be open or closed: " + name);
        };
    }
}
