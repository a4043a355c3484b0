package dev.retrysafe.spring;

import dev.retrysafe.delivery.Outbox;
import dev.retrysafe.delivery.OutboxEvent;
import dev.retrysafe.spring.internal.EventEnvelope;
import java.sql.Connection;
import java.time.Clock;
import java.time.Instant;
import java.util.Objects;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.transaction.IllegalTransactionStateException;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Publishes webhook events through the transactional outbox, inside the application's current
 * Spring transaction: the event's deliveries (one per enabled endpoint of the account subscribed
 * to its type) are written on the very connection the transaction holds, so they commit with the
 * application's own changes or roll back with them. After the commit the dispatcher is woken, so
 * the first attempt does not wait for a poll.
 *
 * <p>Each event is delivered as {@code {"id", "type", "timestamp", "ordering_key"?, "data"}}, the
 * shape the Retrysafe server delivers, with {@code data} the given payload. Outside a transaction every
 * method refuses with an {@link IllegalTransactionStateException}: an event published on an
 * auto-commit connection would be sent even if the change it describes were later lost.
 *
 * <pre>{@code
 * @Transactional
 * public Payment pay(NewPayment request) {
 *     Payment payment = payments.insert(request);
 *     publisher.publish("payment.succeeded", payment);
 *     return payment;
 * }
 * }</pre>
 *
 * This class is threadsafe.
 */
public final class WebhookPublisher {

    private final DataSource dataSource;
    private final String defaultAccount;
    private final WebhookPayloadWriter payloads;
    private final Clock clock;
    private final Runnable afterCommit;
    private final Outbox outbox = Outbox.create();

    /**
     * A publisher over {@code dataSource} (the one the application's transaction manager uses).
     *
     * @param defaultAccount the account whose endpoints receive events published without one
     * @param payloads       turns payload objects into JSON
     * @param afterCommit    run after a transaction that published commits (wakes the dispatcher)
     */
    public WebhookPublisher(
            DataSource dataSource,
            String defaultAccount,
            WebhookPayloadWriter payloads,
            Clock clock,
            Runnable afterCommit) {
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        this.defaultAccount = Objects.requireNonNull(defaultAccount, "defaultAccount");
        this.payloads = Objects.requireNonNull(payloads, "payloads");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.afterCommit = Objects.requireNonNull(afterCommit, "afterCommit");
    }

    /**
     * Publishes an event of {@code type} about {@code payload} (serialised as JSON) to the
     * default account's endpoints; returns the event's id ({@code evt_...}).
     *
     * @throws IllegalTransactionStateException outside a Spring transaction on this data source
     * @throws IllegalArgumentException         for a type that is not dotted lower-case words, or a
     *                                          payload that is not JSON or is larger than 1 MiB
     */
    public String publish(String type, Object payload) {
        return publishJsonTo(defaultAccount, type, payloads.json(payload));
    }

    /** As {@link #publish(String, Object)}, with {@code json} already serialised (sent as it is). */
    public String publishJson(String type, String json) {
        return publishJsonTo(defaultAccount, type, json);
    }

    /** As {@link #publish(String, Object)}, to the endpoints of {@code accountId}. */
    public String publishTo(String accountId, String type, Object payload) {
        return publishJsonTo(accountId, type, payloads.json(payload));
    }

    /**
     * As {@link #publish(String, Object)}, with an ordering key: the entity the event is about (a
     * payment's id, say). An endpoint created with {@code ordered} receives the events of one key
     * one at a time, in commit order; the event carries it as {@code ordering_key}.
     *
     * @throws IllegalArgumentException also for a key that is blank or longer than 255 characters
     */
    public String publishOrdered(String orderingKey, String type, Object payload) {
        Objects.requireNonNull(orderingKey, "orderingKey");
        return publishJsonTo(defaultAccount, type, payloads.json(payload), orderingKey);
    }

    /** As {@link #publishJson(String, String)}, to the endpoints of {@code accountId}. */
    public String publishJsonTo(String accountId, String type, String json) {
        return publishJsonTo(accountId, type, json, null);
    }

    /**
     * As {@link #publishJsonTo(String, String, String)}, with an ordering key (null: none; see
     * {@link #publishOrdered}).
     */
    public String publishJsonTo(String accountId, String type, String json, @Nullable String orderingKey) {
        Objects.requireNonNull(accountId, "accountId");
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(json, "json");
        payloads.checkJson(json);
        if (!TransactionSynchronizationManager.isActualTransactionActive()
                || !TransactionSynchronizationManager.isSynchronizationActive()) {
            throw outsideTransaction(type);
        }
        Connection connection = DataSourceUtils.getConnection(dataSource);
        try {
            if (!DataSourceUtils.isConnectionTransactional(connection, dataSource)) {
                throw outsideTransaction(type);
            }
            String id = EventEnvelope.newEventId();
            Instant at = clock.instant();
            // the key is free text: the payload writer escapes it as it escapes the payload's strings
            String keyJson = orderingKey == null ? null : payloads.json(orderingKey);
            byte[] envelope = EventEnvelope.bytes(id, type, at, keyJson, json);
            outbox.append(connection, new OutboxEvent(id, accountId, type, at, envelope, orderingKey, null));
            TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
                @Override
                public void afterCommit() {
                    afterCommit.run();
                }
            });
            return id;
        } finally {
            DataSourceUtils.releaseConnection(connection, dataSource);
        }
    }

    private static IllegalTransactionStateException outsideTransaction(String type) {
        return new IllegalTransactionStateException("WebhookPublisher.publish(\"" + type
                + "\") needs a Spring transaction on the DataSource the outbox uses (a @Transactional method, "
                + "or TransactionTemplate, with a DataSourceTransactionManager/JdbcTransactionManager): "
                + "outside one the event could be sent although the change it describes is lost");
    }
}
