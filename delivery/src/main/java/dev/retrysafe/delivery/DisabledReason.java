package dev.retrysafe.delivery;

/** Why a webhook endpoint is disabled; {@link #wireName()} is stored and shown in the API. */
public enum DisabledReason {
    /** Its owner disabled it. */
    MANUAL("manual"),
    /** Every attempt failed for the configured time (5 days by default). */
    FAILING("failing"),
    /** The receiver answered {@code 410 Gone}. */
    GONE("gone");

    private final String wireName;

    DisabledReason(String wireName) {
        this.wireName = wireName;
    }

    /** The stored and shown name. */
    public String wireName() {
        return wireName;
    }

    /** The reason with this stored name. */
    public static DisabledReason fromWireName(String name) {
        for (DisabledReason reason : values()) {
            if (reason.wireName.equals(name)) {
                return reason;
            }
        }
        throw new IllegalArgumentException("unknown disabled reason: " + name);
    }
}
