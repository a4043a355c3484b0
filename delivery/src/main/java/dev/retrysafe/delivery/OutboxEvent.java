package dev.retrysafe.delivery;

import dev.retrysafe.delivery.internal.DeliveryChecks;
import java.time.Instant;
import java.util.Arrays;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * An event to deliver to the webhook endpoints of one account. Immutable and threadsafe: the
 * payload is copied in and out.
 *
 * @param id        the event's id ({@code evt_...}), unique: one delivery per endpoint is made per id
 * @param accountId the account whose endpoints receive it
 * @param type      the event type, dotted lower-case words such as {@code payment.succeeded}
 * @param createdAt when the change the event describes was made (its transaction's time); the
 *                  first attempt is due then, and commit-to-first-attempt latency counts from it
 * @param payload   the exact JSON bytes every receiver gets, signed as they are, at most
 *                  {@link #MAX_PAYLOAD_BYTES}
 * @param orderingKey the entity whose events an endpoint created with {@code ordered} receives one
 *                  at a time in commit order (a payment's id, say), 1 to 255 characters; null: none
 * @param traceparent the W3C {@code traceparent} of the request that caused the event, sent on
 *                  every attempt so the trace continues into the receiver; null: none
 */
public record OutboxEvent(
        String id,
        String accountId,
        String type,
        Instant createdAt,
        byte[] payload,
        @Nullable String orderingKey,
        @Nullable String traceparent) {

    /** Largest payload, in bytes (1 MiB). */
    public static final int MAX_PAYLOAD_BYTES = 1 << 20;

    /** Checks every field and copies the payload. */
    public OutboxEvent {
        DeliveryChecks.name("id", Objects.requireNonNull(id, "id"));
        DeliveryChecks.name("accountId", Objects.requireNonNull(accountId, "accountId"));
        DeliveryChecks.eventType("type", Objects.requireNonNull(type, "type"));
        Objects.requireNonNull(createdAt, "createdAt");
        Objects.requireNonNull(payload, "payload");
        if (payload.length == 0 || payload.length > MAX_PAYLOAD_BYTES) {
            throw new IllegalArgumentException(
                    "payload must be 1 to " + MAX_PAYLOAD_BYTES + " bytes, was " + payload.length);
        }
        payload = payload.clone();
        if (orderingKey != null) {
            DeliveryChecks.name("orderingKey", orderingKey);
        }
        if (traceparent != null) {
            DeliveryChecks.traceparent("traceparent", traceparent);
        }
    }

    /** An event without an ordering key or trace context. */
    public OutboxEvent(String id, String accountId, String type, Instant createdAt, byte[] payload) {
        this(id, accountId, type, createdAt, payload, null, null);
    }

    /** This event with {@code orderingKey} (null: none). */
    public OutboxEvent withOrderingKey(@Nullable String orderingKey) {
        return new OutboxEvent(id, accountId, type, createdAt, payload, orderingKey, traceparent);
    }

    /** This event with {@code traceparent} (null: none). */
    public OutboxEvent withTraceparent(@Nullable String traceparent) {
        return new OutboxEvent(id, accountId, type, createdAt, payload, orderingKey, traceparent);
    }

    /**
     * Whether {@code value} is a W3C Trace Context {@code traceparent} this record takes: lower-case
     * hex {@code version-traceid-parentid-flags}, ids not all zeros, version not {@code ff}, at
     * most 128 characters (for a server deciding whether to continue a request's trace).
     */
    public static boolean isTraceparent(String value) {
        return DeliveryChecks.isTraceparent(value);
    }

    /** A copy of the payload. */
    @Override
    public byte[] payload() {
        return payload.clone();
    }

    @Override
    public boolean equals(@Nullable Object other) {
        return other instanceof OutboxEvent that
                && id.equals(that.id)
                && accountId.equals(that.accountId)
                && type.equals(that.type)
                && createdAt.equals(that.createdAt)
                && Arrays.equals(payload, that.payload)
                && Objects.equals(orderingKey, that.orderingKey)
                && Objects.equals(traceparent, that.traceparent);
    }

    @Override
    public int hashCode() {
        return Objects.hash(id, accountId, type, createdAt, Arrays.hashCode(payload), orderingKey, traceparent);
    }

    /** Names the event and the payload's size, not its content. */
    @Override
    public String toString() {
        return "OutboxEvent[id=" + id + ", accountId=" + accountId + ", type=" + type + ", createdAt=" + createdAt
                + ", payload=" + payload.length + " bytes, orderingKey=" + orderingKey + ", traceparent=" + traceparent
                + "]";
    }
}
