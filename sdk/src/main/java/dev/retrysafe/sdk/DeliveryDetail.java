package dev.retrysafe.sdk;

import java.util.List;
import java.util.Objects;

/**
 * A delivery with the payload every attempt sends and every attempt so far
 * ({@code GET /v1/deliveries/{id}}). Immutable and threadsafe.
 *
 * @param delivery the delivery
 * @param payload the body sent: the event as a {@code Map} when it is JSON, else a {@code String}
 * @param attempts every attempt, oldest first
 */
public record DeliveryDetail(Delivery delivery, Object payload, List<DeliveryAttempt> attempts) {

    /** Copies the attempts. */
    public DeliveryDetail {
        Objects.requireNonNull(delivery, "delivery");
        Objects.requireNonNull(payload, "payload");
        attempts = List.copyOf(attempts);
    }
}
