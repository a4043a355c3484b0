package dev.retrysafe.server.payments;

import dev.retrysafe.leasedwork.Pipeline;
import dev.retrysafe.server.db.Ids;
import dev.retrysafe.server.events.EventLog;
import dev.retrysafe.server.events.EventTypes;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Map;

/**
 * The event types of payments and refunds, appended through the {@link EventLog}. Always called
 * with the connection of the change the event describes, so the event (and its webhook
 * deliveries) exist if and only if the change committed. Every one carries its payment's id as
 * its ordering key. This class is threadsafe.
 */
final class Events {

    static final String PAYMENT_SUCCEEDED = EventTypes.PAYMENT_SUCCEEDED;
    static final String PAYMENT_FAILED = EventTypes.PAYMENT_FAILED;
    static final String REFUND_CREATED = EventTypes.REFUND_CREATED;

    private final EventLog log;

    Events(Ids ids) {
        this.log = new EventLog(ids);
    }

    /**
     * Appends an event of the payment {@code paymentId} (a payment's own, or one of its refunds):
     * the payment's id is the ordering key, so an ordered endpoint gets a payment's events one at
     * a time in commit order ("refund.created" never overtakes "payment.succeeded"), while
     * different payments go in parallel.
     */
    void append(Pipeline p, String accountId, String type, Instant at, Map<String, ?> data, String paymentId)
            throws SQLException {
        log.append(p, accountId, type, at, data, paymentId);
    }
}
