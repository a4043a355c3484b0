package dev.retrysafe.delivery;

import dev.retrysafe.delivery.internal.WireNames;

/** Why a webhook endpoint is disabled; {@link #wireName()} is stored and shown in the API. */
public enum DisabledReason {
    /** Its owner disabled it. */
    MANUAL,
    /** Every attempt failed for the configured time (5 days by default). */
    FAILING,
    /** The receiver answered {@code 410 Gone}. */
    GONE;

    private final String wireName = WireNames.of(this);

    /** The stored and shown name. */
    public String wireName() {
        return wireName;
    }

    /** The reason with this stored name. */
    public static DisabledReason fromWireName(String name) {
        return WireNames.parse(DisabledReason.class, name, "disabled reason");
    }
}
