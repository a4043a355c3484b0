package dev.retrysafe.delivery.internal;

import dev.retrysafe.common.TopicPatterns;
import dev.retrysafe.delivery.DeliveryStoreException;
import dev.retrysafe.delivery.OutboxEvent;
import dev.retrysafe.leasedwork.Pipeline;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Turns one event into one pending delivery per subscribed, enabled endpoint (subscribed: one of
 * its patterns takes the event's type, by {@link TopicPatterns}), inside the
 * caller's transaction; held (not due) for a paused endpoint, and numbered in its key (held
 * behind an unfinished one) for an ordered endpoint. Two statements (read the endpoints, insert the deliveries in one batch)
 * rather than one {@code INSERT ... SELECT}, because delivery ids are made here, in the same
 * random, time-sortable form as every other id, which portable SQL cannot do. Both run in the
 * caller's transaction, so the outcome is the same: deliveries exist if and only if it commits.
 * Stateless and threadsafe.
 */
public final class FanOut {

    private FanOut() {}

    /**
     * Appends the deliveries of {@code event} in the transaction of {@code pipeline}, sending what
     * it holds back with the endpoint lookup; returns how many.
     */
    public static int append(Pipeline pipeline, OutboxEvent event) {
        Connection transaction = pipeline.connection();
        try {
            if (transaction.getAutoCommit()) {
                throw new IllegalArgumentException("the outbox appends inside the caller's transaction: "
                        + "the connection given is in auto-commit mode");
            }
            Map<String, Target> endpoints = pipeline.query(
                    OutboxSql.CANDIDATE_SUBSCRIPTIONS,
                    b -> b.string(event.accountId()).string(event.type()),
                    r -> {
                        // in endpoint order, each once, however many of its patterns take the type
                        Map<String, Target> ids = new LinkedHashMap<>();
                        while (r.next()) {
                            if (TopicPatterns.matches(r.getString(2), event.type())) {
                                r.getLong(3);
                                boolean paused = !r.wasNull(); // before any other column is read
                                ids.putIfAbsent(r.getString(1), new Target(paused, r.getBoolean(4)));
                            }
                        }
                        return ids;
                    });
            if (endpoints.isEmpty()) {
                return 0;
            }
            byte[] payload = event.payload();
            long createdAt = event.createdAt().toEpochMilli();
            // decided before the batch: the holds take locks (a paused endpoint's row, a key's row)
            // in endpoint id order, so two fan-outs never wait for each other in a cycle
            Map<String, Admission> admissions = new LinkedHashMap<>();
            for (Map.Entry<String, Target> target : endpoints.entrySet()) {
                admissions.put(target.getKey(), admit(transaction, target.getKey(), target.getValue(), event));
            }
            try (PreparedStatement s = transaction.prepareStatement(OutboxSql.INSERT_DELIVERY)) {
                for (Map.Entry<String, Admission> entry : admissions.entrySet()) {
                    String endpoint = entry.getKey();
                    Admission admission = entry.getValue();
                    s.setString(1, ResourceIds.next(ResourceIds.DELIVERY, event.createdAt()));
                    s.setString(2, endpoint);
                    s.setString(3, event.accountId());
                    s.setString(4, event.id());
                    s.setString(5, event.type());
                    s.setBytes(6, payload);
                    if (admission.held()) {
                        s.setNull(7, Types.BIGINT);
                    } else {
                        s.setLong(7, createdAt);
                    }
                    s.setLong(8, createdAt);
                    s.setString(9, event.orderingKey());
                    s.setString(10, event.traceparent());
                    if (admission.seq() == null) {
                        s.setNull(11, Types.BIGINT);
                    } else {
                        s.setLong(11, admission.seq());
                    }
                    s.addBatch();
                }
                s.executeBatch();
            }
            return endpoints.size();
        } catch (SQLException e) {
            throw new DeliveryStoreException(
                    "outbox append failed for event " + event.id() + " of account " + event.accountId(), e);
        }
    }

    /** An endpoint that takes the event, as read without a lock. */
    private record Target(boolean paused, boolean ordered) {}

    /** How a delivery starts: held (not due) or due at once, and its number in its key if ordered. */
    private record Admission(boolean held, @Nullable Long seq) {}

    /**
     * Held if the endpoint is paused ({@link Holds}: checked again under its row's lock) or the
     * delivery waits for an earlier one of its key ({@link KeyOrder}); an event without a key goes
     * to an ordered endpoint unordered.
     */
    private static Admission admit(Connection c, String endpoint, Target target, OutboxEvent event)
            throws SQLException {
        boolean paused = target.paused() && Holds.stillPaused(c, endpoint);
        String key = event.orderingKey();
        if (!target.ordered() || key == null) {
            return new Admission(paused, null);
        }
        KeyOrder.Place place = KeyOrder.place(c, endpoint, key);
        return new Admission(paused || place.waits(), place.seq());
    }
}
