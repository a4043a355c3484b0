package dev.retrysafe.delivery;

import java.util.List;
import java.util.Objects;

/**
 * A delivery with its payload and every attempt, oldest first ({@code GET /v1/deliveries/{id}}).
 * Immutable and threadsafe: the payload is copied in and out.
 *
 * @param delivery the delivery
 * @param payload  the exact bytes sent
 * @param attempts its attempts, oldest first
 */
public record DeliveryDetail(Delivery delivery, byte[] payload, List<DeliveryAttempt> attempts) {

    /** Checks presence and copies. */
    public DeliveryDetail {
        Objects.requireNonNull(delivery, "delivery");
        payload = Objects.requireNonNull(payload, "payload").clone();
        attempts = List.copyOf(attempts);
    }

    /** A copy of the payload. */
    @Override
    public byte[] payload() {
        return payload.clone();
    }

    @Override
    public boolean equals(@org.jspecify.annotations.Nullable Object other) {
        return other instanceof DeliveryDetail that
                && delivery.equals(that.delivery)
                && java.util.Arrays.equals(payload, that.payload)
                && attempts.equals(that.attempts);
    }

    @Override
    public int hashCode() {
        return Objects.hash(delivery, java.util.Arrays.hashCode(payload), attempts);
    }

    /** Shows the payload's size, not its content. */
    @Override
    public String toString() {
        return "DeliveryDetail[delivery=" + delivery + ", payload=" + payload.length + " bytes, attempts=" + attempts
                + "]";
    }
}
