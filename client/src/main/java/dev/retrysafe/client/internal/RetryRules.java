package dev.retrysafe.client.internal;

import java.time.Duration;
import java.util.Set;
import java.util.random.RandomGenerator;

/**
 * The rules of retrying as short named predicates and the backoff arithmetic, pure functions
 * without state. Stateless and threadsafe.
 */
public final class RetryRules {

    /** Methods that may be repeated whatever happened to the first try (RFC 9110 section 9.2.2). */
    private static final Set<String> IDEMPOTENT = Set.of("GET", "HEAD", "PUT", "DELETE", "OPTIONS");
    /** Methods that become safe to repeat with an {@code Idempotency-Key}. */
    private static final Set<String> KEYABLE = Set.of("POST", "PATCH");
    /** The status of "a request with this key is still being processed". */
    private static final int CONFLICT = 409;

    private RetryRules() {}

    /** Whether a request with {@code method} may be sent again. */
    public static boolean mayRetry(String method, boolean hasIdempotencyKey) {
        return IDEMPOTENT.contains(method) || (hasIdempotencyKey && KEYABLE.contains(method));
    }

    /** Whether a request with {@code method} needs an {@code Idempotency-Key} to be retried. */
    public static boolean needsIdempotencyKey(String method) {
        return KEYABLE.contains(method);
    }

    /**
     * Whether an answer says that the first attempt of this keyed request is still running: a
     * {@code 409} with {@code Retry-After} to a request with an {@code Idempotency-Key}, which is
     * not itself a replay of a stored answer.
     */
    public static boolean isKeyInUse(int status, boolean hasIdempotencyKey, boolean hasRetryAfter, boolean replayed) {
        return status == CONFLICT && hasIdempotencyKey && hasRetryAfter && !replayed;
    }

    /** {@code min(cap, base * 2^retry)} in nanoseconds, without overflow. */
    public static long backoffBoundNanos(long baseNanos, long capNanos, int retry) {
        if (retry >= 62 || baseNanos > (capNanos >> retry)) {
            return capNanos;
        }
        return Math.min(capNanos, baseNanos << retry);
    }

    /**
     * The spread after a {@code Retry-After}: {@code min(cap, max(backoffBound, spread * retryAfter))}
     * in nanoseconds, without overflow.
     */
    public static long spreadWindowNanos(long backoffBoundNanos, Duration retryAfter, double spread, long capNanos) {
        double proportional = spread * saturatedNanos(retryAfter);
        long scaled = proportional >= capNanos ? capNanos : (long) proportional;
        return Math.min(capNanos, Math.max(backoffBoundNanos, scaled));
    }

    /** A uniformly random value in {@code [0, bound]}. */
    public static long uniform(RandomGenerator random, long bound) {
        if (bound <= 0) {
            return 0;
        }
        return bound == Long.MAX_VALUE ? random.nextLong(bound) : random.nextLong(bound + 1);
    }

    /** {@code d} in nanoseconds, or {@link Long#MAX_VALUE} when it does not fit. */
    public static long saturatedNanos(Duration d) {
        if (d.getSeconds() >= Long.MAX_VALUE / 1_000_000_000L) {
            return Long.MAX_VALUE;
        }
        return d.toNanos();
    }
}
