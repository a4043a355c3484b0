package dev.retrysafe.delivery;

import java.sql.Connection;

/**
 * Where events go, inside a transaction: {@link Outbox} is one. The {@link Dispatcher} emits
 * {@code webhook_endpoint.disabled} through a sink, so an application that also keeps its own
 * event log ({@code GET /v1/events}) can pass a sink that writes both in the same transaction.
 * Implementations must be threadsafe.
 */
@FunctionalInterface
public interface EventSink {

    /** The type of the event the {@link Dispatcher} emits when it disables an endpoint. */
    String ENDPOINT_DISABLED = "webhook_endpoint.disabled";

    /**
     * Records {@code event} in the transaction of {@code transaction}: it takes effect if and
     * only if that transaction commits. Never commits, rolls back or changes auto-commit.
     *
     * @throws DeliveryStoreException if the database fails
     */
    void append(Connection transaction, OutboxEvent event);
}
