package dev.retrysafe.delivery;

/** Where a delivery stands; {@link #wireName()} is stored and shown in the API. */
public enum DeliveryStatus {
    /** Waiting for its next attempt (due at {@link Delivery#nextAttemptAt()}). */
    PENDING("pending"),
    /** Claimed by a dispatcher, whose attempt is under way. */
    DELIVERING("delivering"),
    /** The receiver answered {@code 2xx}. */
    SUCCEEDED("succeeded"),
    /** Every scheduled attempt failed, or the endpoint was disabled; it can be retried by hand. */
    FAILED("failed");

    private final String wireName;

    DeliveryStatus(String wireName) {
        this.wireName = wireName;
    }

    /** The stored and shown name. */
    public String wireName() {
        return wireName;
    }

    /** The status with this stored name. */
    public static DeliveryStatus fromWireName(String name) {
        for (DeliveryStatus status : values()) {
            if (status.wireName.equals(name)) {
                return status;
            }
        }
        throw new IllegalArgumentException("unknown delivery status: " + name);
    }
}
