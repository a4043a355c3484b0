package dev.retrysafe.webhooks;

import java.util.Map;
import java.util.Objects;

/**
 * The three Standard Webhooks headers of one delivery attempt, ready to send. Immutable and
 * threadsafe.
 *
 * @param id the {@code webhook-id}: the same for every attempt of one event to one endpoint
 * @param timestamp the {@code webhook-timestamp}: seconds since the epoch, of this attempt
 * @param signature the {@code webhook-signature}: one {@code v1,<base64>} per secret, space-separated
 */
public record SignedHeaders(String id, long timestamp, String signature) {

    /** Name of the header holding the message id. */
    public static final String WEBHOOK_ID = "webhook-id";
    /** Name of the header holding the attempt's time, in seconds since the epoch. */
    public static final String WEBHOOK_TIMESTAMP = "webhook-timestamp";
    /** Name of the header holding the space-separated signatures. */
    public static final String WEBHOOK_SIGNATURE = "webhook-signature";

    /** Checks that every part is present and the timestamp is not negative. */
    public SignedHeaders {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(signature, "signature");
        if (timestamp < 0) {
            throw new IllegalArgumentException("timestamp must not be negative: " + timestamp);
        }
    }

    /** The headers by name, in the order id, timestamp, signature. */
    public Map<String, String> toMap() {
        return Map.of(WEBHOOK_ID, id, WEBHOOK_TIMESTAMP, Long.toString(timestamp), WEBHOOK_SIGNATURE, signature);
    }
}
