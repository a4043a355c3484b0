package dev.retrysafe.delivery;

import dev.retrysafe.delivery.internal.FanOut;
import dev.retrysafe.leasedwork.Pipeline;
import java.sql.Connection;

/**
 * The transactional outbox: {@link #append} writes, in the caller's own transaction, one pending
 * delivery for each enabled webhook endpoint of the event's account that is subscribed to the
 * event's type (or to {@code *}). A change that rolls back therefore emits nothing, and a change
 * that commits always has its deliveries, even if the process dies right after the commit: the
 * {@link Dispatcher} of any instance picks them up. Stateless and threadsafe.
 *
 * <pre>{@code
 * try (Connection tx = dataSource.getConnection()) {
 *     tx.setAutoCommit(false);
 *     insertPayment(tx, payment);
 *     outbox.append(tx, new OutboxEvent(eventId, accountId, "payment.succeeded", now, json));
 *     tx.commit();
 * }
 * }</pre>
 */
public final class Outbox implements EventSink {

    private static final Outbox INSTANCE = new Outbox();

    private Outbox() {}

    /** The outbox (it holds no state). */
    public static Outbox create() {
        return INSTANCE;
    }

    /**
     * Fans {@code event} out to the subscribed endpoints inside {@code transaction}.
     *
     * @throws IllegalArgumentException if the connection is in auto-commit mode (the deliveries
     *     would not share the fate of the change)
     * @throws DeliveryStoreException if the database fails, including when an event with the same
     *     id was already appended (its deliveries exist: the id must be unique)
     */
    @Override
    public void append(Connection transaction, OutboxEvent event) {
        FanOut.append(Pipeline.immediate(transaction), event);
    }

    /** Like {@link #append}, returning the number of deliveries made (0 if no endpoint is subscribed). */
    public int appendCounting(Connection transaction, OutboxEvent event) {
        return FanOut.append(Pipeline.immediate(transaction), event);
    }

    /**
     * Like {@link #appendCounting(Connection, OutboxEvent)}, in the transaction of {@code pipeline}:
     * the writes it holds back (the change the event describes, say) go to the database in the
     * same round trip as the lookup of the subscribed endpoints. Nothing is held back on return.
     *
     * @throws DeliveryStoreException if the database fails, also when the failing statement is
     *     one of the held-back writes (its {@link java.sql.SQLException}, with its SQLState, is the cause)
     */
    public int appendCounting(Pipeline pipeline, OutboxEvent event) {
        return FanOut.append(pipeline, event);
    }
}
