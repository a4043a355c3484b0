package dev.retrysafe.client;

import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/** Why an attempt was retried: a retryable status, or a transient failure. Immutable and threadsafe. */
public sealed interface RetryReason {

    /** One line for logs, such as {@code 503, Retry-After 1 s} or {@code timeout}. */
    String describe();

    /**
     * The server answered with a retryable status.
     *
     * @param status the status code
     * @param retryAfter the {@code Retry-After} it sent, read as a delay; {@code null} when it sent
     *     none or one that could not be read (see {@link RetryPolicy})
     */
    record Status(int status, @Nullable Duration retryAfter) implements RetryReason {
        /** Checks the status. */
        public Status {
            if (status < 100 || status > 599) {
                throw new IllegalArgumentException("status must be 100..599, was " + status);
            }
        }

        @Override
        public String describe() {
            return retryAfter == null
                    ? Integer.toString(status)
                    : status + ", Retry-After " + retryAfter.toMillis() + " ms";
        }
    }

    /**
     * The attempt failed without an answer.
     *
     * @param kind what failed
     * @param message the failure's message, for logs
     */
    record Failure(FailureKind kind, String message) implements RetryReason {
        /** Checks the values. */
        public Failure {
            Objects.requireNonNull(kind, "kind");
            Objects.requireNonNull(message, "message");
        }

        @Override
        public String describe() {
            return kind.name().toLowerCase(java.util.Locale.ROOT) + (message.isEmpty() ? "" : " (" + message + ")");
        }
    }
}
