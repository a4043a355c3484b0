package dev.retrysafe.delivery;

import dev.retrysafe.delivery.internal.WireNames;

/** Where a delivery stands; {@link #wireName()} is stored and shown in the API. */
public enum DeliveryStatus {
    /** Waiting for its next attempt (due at {@link Delivery#nextAttemptAt()}). */
    PENDING,
    /** Claimed by a dispatcher, whose attempt is under way. */
    DELIVERING,
    /** The receiver answered {@code 2xx}. */
    SUCCEEDED,
    /** Every scheduled attempt failed, or the endpoint was disabled; it can be retried by hand. */
    FAILED;

    private final String wireName = WireNames.of(this);

    /** The stored and shown name. */
    public String wireName() {
        return wireName;
    }

    /** The status with this stored name. */
    public static DeliveryStatus fromWireName(String name) {
        return WireNames.parse(DeliveryStatus.class, name, "delivery status");
    }
}
