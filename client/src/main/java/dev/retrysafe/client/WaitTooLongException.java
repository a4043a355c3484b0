package dev.retrysafe.client;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.OptionalInt;
import org.jspecify.annotations.Nullable;

/**
 * The server asked the client to wait longer than it may: a {@code Retry-After} (or an exhausted
 * rate limit's reset) beyond {@link RetryPolicy#maxRetryAfter()} or beyond the call's deadline. The
 * call fails at once instead of sleeping for hours; {@link #requested()} says how long the server
 * asked for, so the caller can schedule the work for later.
 */
public final class WaitTooLongException extends RetryFailedException {

    /** Where the requested wait came from. */
    public enum Source {
        /** The {@code Retry-After} header of an answer with a retryable status. */
        RETRY_AFTER,
        /** The reset of an exhausted rate limit ({@code RateLimit} or {@code X-RateLimit-Reset}), before sending. */
        RATE_LIMIT_RESET
    }

    /** Which limit the wait exceeded. */
    public enum Limit {
        /** {@link RetryPolicy#maxRetryAfter()}. */
        MAX_RETRY_AFTER,
        /** What was left of {@link RetryPolicy#deadline()}. */
        DEADLINE
    }

    private final Duration requested;
    private final Duration allowed;
    private final Source source;
    private final Limit limit;
    private final OptionalInt status;

    /**
     * A refused wait.
     *
     * @param requested the wait the server asked for
     * @param allowed the longest wait the limit allowed
     * @param source where the request came from
     * @param limit which limit it exceeded
     * @param status the status of the answer that asked for it, empty for a rate-limit reset
     *     known before sending
     * @param attempts every attempt made, oldest first
     * @param idempotencyKey the call's {@code Idempotency-Key}, or {@code null}
     */
    public WaitTooLongException(
            Duration requested,
            Duration allowed,
            Source source,
            Limit limit,
            OptionalInt status,
            List<Attempt> attempts,
            @Nullable String idempotencyKey) {
        super(
                message(requested, allowed, source, limit, status),
                null,
                attempts,
                StopReason.WAIT_TOO_LONG,
                idempotencyKey);
        this.requested = Objects.requireNonNull(requested, "requested");
        this.allowed = Objects.requireNonNull(allowed, "allowed");
        this.source = Objects.requireNonNull(source, "source");
        this.limit = Objects.requireNonNull(limit, "limit");
        this.status = Objects.requireNonNull(status, "status");
    }

    private static String message(
            Duration requested, Duration allowed, Source source, Limit limit, OptionalInt status) {
        String what = source == Source.RETRY_AFTER
                ? "the server answered " + (status.isPresent() ? status.getAsInt() + " " : "") + "with Retry-After "
                        + seconds(requested)
                : "the host's rate limit is exhausted for another " + seconds(requested);
        String bound = limit == Limit.MAX_RETRY_AFTER
                ? "the policy's maxRetryAfter is " + seconds(allowed)
                : "only " + seconds(allowed) + " is left before the call's deadline";
        return what + ", but " + bound + "; not waiting (retry the call later)";
    }

    private static String seconds(Duration d) {
        if (d.getSeconds() >= 100L * 365 * 24 * 3600) {
            return "more than 100 years";
        }
        long millis = d.toMillis();
        return millis % 1000 == 0
                ? millis / 1000 + " s"
                : String.format(java.util.Locale.ROOT, "%.3f s", millis / 1000.0);
    }

    /** The wait the server asked for. */
    public Duration requested() {
        return requested;
    }

    /** The longest wait the exceeded limit allowed. */
    public Duration allowed() {
        return allowed;
    }

    /** Where the requested wait came from. */
    public Source source() {
        return source;
    }

    /** Which limit it exceeded. */
    public Limit limit() {
        return limit;
    }

    /** The status of the answer that asked for the wait; empty for a rate-limit reset known before sending. */
    public OptionalInt status() {
        return status;
    }
}
