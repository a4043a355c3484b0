package dev.retrysafe.sdk;

import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * An event of the account ({@code GET /v1/events/{id}}), exactly the payload its webhooks deliver.
 * Immutable and threadsafe.
 *
 * @param id {@code evt_...}
 * @param type such as {@code payment.succeeded}
 * @param timestamp when it happened
 * @param orderingKey what orders it among its key's events on an ordered endpoint (the payment's id
 *     on {@code payment.*} and {@code refund.*} events), or {@code null} for an event without one
 * @param data the full object it is about (the payment, refund, job or endpoint) as read:
 *     strings, numbers, booleans, lists and maps
 */
public record Event(
        String id, String type, Instant timestamp, @Nullable String orderingKey, Map<String, @Nullable Object> data) {

    /** An event without an ordering key. */
    public Event(String id, String type, Instant timestamp, Map<String, @Nullable Object> data) {
        this(id, type, timestamp, null, data);
    }

    /** Copies the data. */
    public Event {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(timestamp, "timestamp");
        data = Collections.unmodifiableMap(new LinkedHashMap<>(data));
    }

    /** The id of the object the event is about ({@code data.id}), or {@code null} when it has none. */
    public @Nullable String objectId() {
        return data.get("id") instanceof String s ? s : null;
    }
}
