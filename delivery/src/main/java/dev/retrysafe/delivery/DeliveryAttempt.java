package dev.retrysafe.delivery;

import dev.retrysafe.delivery.AttemptResult.Outcome;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One recorded attempt of a delivery. Immutable and threadsafe.
 *
 * @param id              {@code att_...}
 * @param deliveryId      the delivery
 * @param number          1 for the first attempt; repeats only if a lease was lost mid-attempt
 * @param startedAt       when it started (its {@code webhook-timestamp})
 * @param outcome         the class of its result
 * @param statusCode      the HTTP status, if the receiver answered
 * @param latency         how long it took
 * @param responseSnippet the first 1 KiB of the answer's body
 * @param errorDetail     what went wrong when there was no answer; empty otherwise
 */
public record DeliveryAttempt(
        String id,
        String deliveryId,
        int number,
        Instant startedAt,
        Outcome outcome,
        @Nullable Integer statusCode,
        Duration latency,
        String responseSnippet,
        String errorDetail) {

    /** Checks presence. */
    public DeliveryAttempt {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(deliveryId, "deliveryId");
        Objects.requireNonNull(startedAt, "startedAt");
        Objects.requireNonNull(outcome, "outcome");
        Objects.requireNonNull(latency, "latency");
        Objects.requireNonNull(responseSnippet, "responseSnippet");
        Objects.requireNonNull(errorDetail, "errorDetail");
    }
}
