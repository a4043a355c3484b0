package dev.retrysafe.client;

import java.io.IOException;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * A call ended without an answer the caller can use: its last attempt failed (timeout, reset,
 * refused connection...) and no retry was allowed, or the client refused to wait as long as the
 * server asked ({@link WaitTooLongException}). The last failure is the {@linkplain #getCause()
 * cause}. An {@link IOException}, like every failure of {@link java.net.http.HttpClient#send}.
 * Immutable once thrown.
 */
public class RetryFailedException extends IOException {

    private final transient List<Attempt> attempts;
    private final StopReason stopReason;
    private final @Nullable String idempotencyKey;

    /**
     * A failed call.
     *
     * @param message what happened, for people
     * @param cause the last attempt's failure, or {@code null}
     * @param attempts every attempt made, oldest first (possibly none, when the client refused to
     *     wait before the first)
     * @param stopReason why no further attempt was made
     * @param idempotencyKey the {@code Idempotency-Key} of the call, or {@code null}
     */
    public RetryFailedException(
            String message,
            @Nullable Throwable cause,
            List<Attempt> attempts,
            StopReason stopReason,
            @Nullable String idempotencyKey) {
        super(message, cause);
        this.attempts = List.copyOf(attempts);
        this.stopReason = stopReason;
        this.idempotencyKey = idempotencyKey;
    }

    /** Every attempt made, oldest first. */
    public List<Attempt> attempts() {
        return attempts;
    }

    /** Why no further attempt was made. */
    public StopReason stopReason() {
        return stopReason;
    }

    /**
     * The {@code Idempotency-Key} every attempt carried, or {@code null}: retry the call later
     * with this key to reach the same effect at most once.
     */
    public @Nullable String idempotencyKey() {
        return idempotencyKey;
    }
}
