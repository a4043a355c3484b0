package dev.retrysafe.client;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The outcome of a call that got an answer: the last response and every attempt that led to it.
 * A retryable status that could not be retried any more (attempts, budget or deadline used up) is
 * an answer too; {@link #stopReason()} says why the client stopped. Immutable (the body is what
 * the handler made of it) and threadsafe.
 *
 * @param response the last attempt's response
 * @param attempts every attempt, oldest first; the last one is the response's
 * @param idempotencyKey the {@code Idempotency-Key} sent on every attempt, or {@code null}
 * @param elapsed from the call to the answer, on the client's clock, waits included
 * @param <T> the body type
 */
public record CallResult<T>(
        HttpResponse<T> response,
        List<Attempt> attempts,
        @Nullable String idempotencyKey,
        Duration elapsed) {

    /** Copies the attempts; there is at least one. */
    public CallResult {
        Objects.requireNonNull(response, "response");
        attempts = List.copyOf(attempts);
        if (attempts.isEmpty()) {
            throw new IllegalArgumentException("a result has at least one attempt");
        }
        Objects.requireNonNull(elapsed, "elapsed");
    }

    /** The last response's status code. */
    public int statusCode() {
        return response.statusCode();
    }

    /** The last response's body. */
    public T body() {
        return response.body();
    }

    /** How many attempts were made (1 when the first answer was final). */
    public int attemptCount() {
        return attempts.size();
    }

    /** Why each retry happened, in order: one entry per attempt but the last. */
    public List<RetryReason> retryReasons() {
        return attempts.stream()
                .map(Attempt::decision)
                .filter(d -> d instanceof Decision.Retry)
                .map(d -> ((Decision.Retry) d).reason())
                .toList();
    }

    /** Why the last attempt was the last. */
    public StopReason stopReason() {
        return ((Decision.Stop) attempts.getLast().decision()).reason();
    }
}
