package dev.retrysafe.sdk;

import java.time.Instant;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One event on its way to one webhook endpoint. Immutable and threadsafe.
 *
 * @param id {@code msg_...}, also the {@code webhook-id} every attempt carries
 * @param endpointId the endpoint
 * @param eventId the event
 * @param eventType the event's type
 * @param status {@code pending}, {@code delivering}, {@code succeeded} or {@code failed}
 * @param attemptCount how many attempts were made
 * @param nextAttemptAt when the next attempt is due, or {@code null} when none is
 * @param createdAt when the delivery was made
 * @param lastAttemptAt when the last attempt started, or {@code null} before the first
 * @param lastOutcome the last attempt's outcome ({@code success}, {@code http_error}, {@code timeout}, ...), or {@code null}
 * @param lastStatusCode the status the endpoint answered last, or {@code null}
 */
public record Delivery(
        String id,
        String endpointId,
        String eventId,
        String eventType,
        String status,
        int attemptCount,
        @Nullable Instant nextAttemptAt,
        Instant createdAt,
        @Nullable Instant lastAttemptAt,
        @Nullable String lastOutcome,
        @Nullable Integer lastStatusCode) {

    /** Checks that the required values are there. */
    public Delivery {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(endpointId, "endpointId");
        Objects.requireNonNull(eventId, "eventId");
        Objects.requireNonNull(eventType, "eventType");
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(createdAt, "createdAt");
    }

    /** Whether no attempt will follow on its own ({@code succeeded} or {@code failed}). */
    public boolean finished() {
        return "succeeded".equals(status) || "failed".equals(status);
    }
}
