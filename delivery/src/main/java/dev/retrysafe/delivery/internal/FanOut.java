package dev.retrysafe.delivery.internal;

import dev.retrysafe.common.TopicPatterns;
import dev.retrysafe.delivery.DeliveryStoreException;
import dev.retrysafe.delivery.OutboxEvent;
import dev.retrysafe.leasedwork.Pipeline;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * Turns one event into one pending delivery per subscribed, enabled endpoint (subscribed: one of
 * its patterns takes the event's type, by {@link TopicPatterns}), inside the
 * caller's transaction. Two statements (read the endpoints, insert the deliveries in one batch)
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
            Set<String> endpoints = pipeline.query(
                    OutboxSql.CANDIDATE_SUBSCRIPTIONS,
                    b -> b.string(event.accountId()).string(event.type()),
                    r -> {
                        // in endpoint order, each once, however many of its patterns take the type
                        Set<String> ids = new LinkedHashSet<>();
                        while (r.next()) {
                            if (TopicPatterns.matches(r.getString(2), event.type())) {
                                ids.add(r.getString(1));
                            }
                        }
                        return ids;
                    });
            if (endpoints.isEmpty()) {
                return 0;
            }
            byte[] payload = event.payload();
            long createdAt = event.createdAt().toEpochMilli();
            try (PreparedStatement s = transaction.prepareStatement(OutboxSql.INSERT_DELIVERY)) {
                for (String endpoint : endpoints) {
                    s.setString(1, ResourceIds.next(ResourceIds.DELIVERY, event.createdAt()));
                    s.setString(2, endpoint);
                    s.setString(3, event.accountId());
                    s.setString(4, event.id());
                    s.setString(5, event.type());
                    s.setBytes(6, payload);
                    s.setLong(7, createdAt);
                    s.setLong(8, createdAt);
                    s.setString(9, event.orderingKey());
                    s.setString(10, event.traceparent());
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
}
