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
 * deliveries) exist if and only if the change committed. This class is threadsafe.
 */
final class Events {

    static final String PAYMENT_SUCCEEDED = EventTypes.PAYMENT_SUCCEEDED;
    static final String PAYMENT_FAILED = EventTypes.PAYMENT_FAILED;
    static final String REFUND_CREATED = EventTypes.REFUND_CREATED;

    private final EventLog log;

    Events(Ids ids) {
        this.log = new EventLog(ids);
    }

    void append(Pipeline p, String accountId, String type, Instant at, Map<String, ?> data) throws SQLException {
        log.append(p, accountId, type, at, data);
    }
}
