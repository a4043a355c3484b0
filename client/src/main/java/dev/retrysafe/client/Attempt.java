package dev.retrysafe.client;

import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.Objects;
import java.util.OptionalInt;
import org.jspecify.annotations.Nullable;

/**
 * One attempt of a call, as {@link AttemptListener}s see it and {@link CallResult} keeps it.
 * Immutable and threadsafe.
 *
 * @param number 1 for the first attempt
 * @param method the request method
 * @param uri the request URI
 * @param idempotencyKey the {@code Idempotency-Key} sent (the same on every attempt of a call), or
 *     {@code null}
 * @param pacingWait how long the client waited before sending because the host's rate limit was
 *     exhausted ({@link Duration#ZERO} mostly)
 * @param status the answer's status, empty when the attempt failed
 * @param failure the failure, {@code null} when there was an answer
 * @param retryAfter the {@code Retry-After} header as received, or {@code null}
 * @param duration from sending to the answer or the failure, on the client's clock
 * @param decision what followed
 */
public record Attempt(
        int number,
        String method,
        URI uri,
        @Nullable String idempotencyKey,
        Duration pacingWait,
        OptionalInt status,
        @Nullable IOException failure,
        @Nullable String retryAfter,
        Duration duration,
        Decision decision) {

    /** Checks that there is exactly one of status and failure. */
    public Attempt {
        if (number < 1) {
            throw new IllegalArgumentException("number must be at least 1, was " + number);
        }
        Objects.requireNonNull(method, "method");
        Objects.requireNonNull(uri, "uri");
        Objects.requireNonNull(pacingWait, "pacingWait");
        Objects.requireNonNull(duration, "duration");
        Objects.requireNonNull(decision, "decision");
        if (status.isPresent() == (failure != null)) {
            throw new IllegalArgumentException("an attempt has either a status or a failure");
        }
    }

    /** The wait before the next attempt, or {@link Duration#ZERO} when this was the last. */
    public Duration waitAfter() {
        return decision instanceof Decision.Retry retry ? retry.delay() : Duration.ZERO;
    }

    /** One line for logs, such as {@code attempt 1: 503, Retry-After=1, waiting 1234ms}. */
    public String describe() {
        StringBuilder s = new StringBuilder("attempt ").append(number).append(": ");
        if (failure != null) {
            s.append(failure.getClass().getSimpleName());
            if (failure.getMessage() != null) {
                s.append(" (").append(failure.getMessage()).append(')');
            }
        } else {
            s.append(status.getAsInt()).append(", Retry-After=").append(retryAfter == null ? "-" : retryAfter);
        }
        if (pacingWait.isPositive()) {
            s.append(", after pacing ").append(pacingWait.toMillis()).append("ms");
        }
        switch (decision) {
            case Decision.Retry r ->
                s.append(", waiting ").append(r.delay().toMillis()).append("ms");
            case Decision.Stop stop -> s.append(", stop: ").append(stop.reason());
        }
        return s.toString();
    }
}
