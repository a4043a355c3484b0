package dev.retrysafe.delivery.internal;

import dev.retrysafe.client.internal.RetryAfterHeader;
import java.time.Duration;
import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * Reads a receiver's {@code Retry-After} value (RFC 9110 section 10.2.3) with the retrying
 * client's parser, Retrysafe's one reader of the header: delta-seconds, or an HTTP-date in any of
 * the three formats a recipient must accept (section 5.6.7). Stateless and threadsafe.
 */
public final class RetryAfter {

    /**
     * The longest wait reported. Larger values are clamped so that adding the wait to a time
     * cannot overflow; the dispatcher applies its own, much smaller bounds.
     */
    public static final Duration MAX = Duration.ofDays(365);

    private RetryAfter() {}

    /**
     * The wait {@code value} asks for, seen at {@code now}; zero for a date in the past,
     * {@code null} when the value is neither form.
     */
    public static @Nullable Duration parse(@Nullable String value, Instant now) {
        Duration wait = value == null ? null : RetryAfterHeader.delay(value, now);
        return wait == null || wait.compareTo(MAX) <= 0 ? wait : MAX;
    }
}
