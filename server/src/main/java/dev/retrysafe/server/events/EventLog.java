package dev.retrysafe.server.events;

import com.fasterxml.jackson.databind.JsonNode;
import dev.retrysafe.delivery.DeliveryStoreException;
import dev.retrysafe.delivery.EventSink;
import dev.retrysafe.delivery.Outbox;
import dev.retrysafe.delivery.OutboxEvent;
import dev.retrysafe.leasedwork.Pipeline;
import dev.retrysafe.server.db.Ids;
import dev.retrysafe.server.http.Json;
import dev.retrysafe.server.http.RequestEffects;
import dev.retrysafe.server.http.TraceContext;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Records events. Each one goes, in the caller's transaction, into the {@code events} table (what
 * {@code GET /v1/events} reads) and into the delivery {@link Outbox} (one pending delivery per
 * subscribed webhook endpoint), so an event and its deliveries exist if and only if the change
 * they describe committed. The delivered payload is the event exactly as {@code GET /v1/events/{id}}
 * shows it. This class is threadsafe.
 */
public final class EventLog {

    private final Ids ids;
    private final Outbox outbox = Outbox.create();

    /** A log naming events with {@code ids}. */
    public EventLog(Ids ids) {
        this.ids = ids;
    }

    /**
     * Appends an event of {@code type} about {@code data} (the full object) in the transaction of
     * {@code c}, which must not be in auto-commit mode; returns its id.
     */
    public String append(Connection c, String accountId, String type, Instant at, Map<String, ?> data)
            throws SQLException {
        return append(Pipeline.immediate(c), accountId, type, at, data);
    }

    /**
     * Like {@link #append(Connection, String, String, Instant, Map)}, through {@code p}: on
     * PostgreSQL the event's row, with the writes held back before it, goes in the round trip
     * that looks up the subscribed endpoints. {@code p} has nothing held back on return.
     */
    public String append(Pipeline p, String accountId, String type, Instant at, Map<String, ?> data)
            throws SQLException {
        return append(p, accountId, type, at, data, null);
    }

    /**
     * Like {@link #append(Pipeline, String, String, Instant, Map)}, with the event's ordering key:
     * an endpoint created with {@code ordered: true} receives the events of one key one at a time,
     * in commit order (null: none).
     */
    public String append(
            Pipeline p, String accountId, String type, Instant at, Map<String, ?> data, @Nullable String orderingKey)
            throws SQLException {
        String id = ids.next("evt_");
        byte[] dataJson = Json.bytes(data);
        String traceparent = traceparent();
        EventStore.insert(
                p, id, accountId, type, at, new String(dataJson, StandardCharsets.UTF_8), orderingKey, traceparent);
        try {
            int deliveries = outbox.appendCounting(
                    p,
                    new OutboxEvent(
                            id,
                            accountId,
                            type,
                            at,
                            Json.bytes(envelope(id, type, at, orderingKey, data)),
                            orderingKey,
                            traceparent));
            RequestEffects.eventsRecorded(deliveries);
        } catch (DeliveryStoreException e) {
            throw e.getCause() instanceof SQLException sql ? sql : new SQLException("outbox append failed", e);
        }
        return id;
    }

    /**
     * The sink for events the dispatcher emits ({@code webhook_endpoint.disabled}): written to the
     * {@code events} table and the outbox in the dispatcher's transaction, so they show in
     * {@code GET /v1/events} and reach the account's other subscribed endpoints.
     */
    public static EventSink sink() {
        Outbox outbox = Outbox.create();
        return (transaction, event) -> {
            try {
                JsonNode envelope = Json.MAPPER.readTree(event.payload());
                JsonNode data = envelope.path("data");
                EventStore.insert(
                        Pipeline.immediate(transaction),
                        event.id(),
                        event.accountId(),
                        event.type(),
                        event.createdAt(),
                        data.isMissingNode() ? "{}" : Json.MAPPER.writeValueAsString(data),
                        event.orderingKey(),
                        event.traceparent());
            } catch (SQLException e) {
                throw new DeliveryStoreException("recording event " + event.id() + " failed", e);
            } catch (IOException e) {
                throw new IllegalArgumentException("event " + event.id() + " has no JSON payload", e);
            }
            outbox.append(transaction, event);
        };
    }

    /**
     * The W3C {@code traceparent} of the request being handled on this thread (see
     * {@link TraceContext}), stored with the event and sent with each of its deliveries; null when
     * there is none (a report job's events: the job does not keep the trace of the request that
     * created it).
     */
    private static @Nullable String traceparent() {
        return TraceContext.current();
    }

    /** The event as shown and delivered: {@code {id, type, timestamp, data}}. */
    static Map<String, Object> envelope(String id, String type, Instant at, Object data) {
        return envelope(id, type, at, null, data);
    }

    /**
     * The event as shown and delivered: {@code {id, type, timestamp, ordering_key?, data}}, with
     * {@code ordering_key} only on an event that has one (the payment's id on {@code payment.*}
     * and {@code refund.*} events), so a receiver can tell which events an ordered endpoint
     * sends it one at a time.
     */
    static Map<String, Object> envelope(String id, String type, Instant at, @Nullable String orderingKey, Object data) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", id);
        m.put("type", type);
        m.put("timestamp", DateTimeFormatter.ISO_INSTANT.format(at));
        if (orderingKey != null) {
            m.put("ordering_key", orderingKey);
        }
        m.put("data", data);
        return m;
    }
}
