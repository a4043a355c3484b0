package dev.retrysafe.delivery;

import dev.retrysafe.delivery.AttemptResult.Outcome;
import java.time.Instant;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One event on its way to one endpoint. Immutable and threadsafe.
 *
 * @param id             {@code msg_...}; also the {@code webhook-id} header of every attempt
 * @param endpointId     the endpoint
 * @param accountId      the owning account
 * @param eventId        the event
 * @param eventType      the event's type
 * @param status         where it stands
 * @param attempts       attempts made so far
 * @param nextAttemptAt  when the next attempt is due (pending), or when the current claim's
 *                       lease runs out (delivering); {@code null} once finished
 * @param createdAt      the event's time
 * @param lastAttemptAt  when the last attempt started
 * @param lastOutcome    the class of the last attempt's result
 * @param lastStatusCode the HTTP status of the last attempt, if the receiver answered
 */
public record Delivery(
        String id,
        String endpointId,
        String accountId,
        String eventId,
        String eventType,
        DeliveryStatus status,
        int attempts,
        @Nullable Instant nextAttemptAt,
        Instant createdAt,
        @Nullable Instant lastAttemptAt,
        @Nullable Outcome lastOutcome,
        @Nullable Integer lastStatusCode) {

    /** Checks presence and that the counts make sense. */
    public Delivery {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(endpointId, "endpointId");
        Objects.requireNonNull(accountId, "accountId");
        Objects.requireNonNull(eventId, "eventId");
        Objects.requireNonNull(eventType, "eventType");
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(createdAt, "createdAt");
        if (attempts < 0) {
            throw new IllegalArgumentException("attempts must not be negative: " + attempts);
        }
    }
}
