package dev.retrysafe.delivery.internal;

import dev.retrysafe.common.JsonStrings;
import dev.retrysafe.delivery.AttemptResult;
import dev.retrysafe.delivery.DeliveryStatus;
import dev.retrysafe.delivery.DisabledReason;
import dev.retrysafe.delivery.EventSink;
import dev.retrysafe.delivery.OutboxEvent;
import dev.retrysafe.leasedwork.internal.Jdbc;
import dev.retrysafe.leasedwork.internal.Rows;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Stores one attempt's outcome in one short transaction that locks the endpoint row before any
 * delivery row (the order every writer here and in {@link EndpointStore} uses): the endpoint's
 * failing streak, slow-down and disabling, the attempt log, then the delivery, fenced by its
 * claim's token. Successes that finish together take the batched path of {@link SuccessStore}
 * instead. Threadsafe (stateless between calls).
 */
final class AttemptStore {

    private static final System.Logger LOG = System.getLogger("dev.retrysafe.delivery.Dispatcher");
    private static final int MAX_DETAIL_CHARS = 1024;

    private final DispatcherConfig config;

    AttemptStore(DispatcherConfig config) {
        this.config = config;
    }

    /**
     * What storing an attempt came to: the delivery's status after it ({@code null}: the claim had
     * run out, or the delivery is gone) and whether it disabled the endpoint.
     */
    record Stored(@Nullable DeliveryStatus status, boolean disabledEndpoint) {
        /** The status if the attempt finished the delivery, else {@code null}. */
        @Nullable
        DeliveryStatus finished() {
            return status == DeliveryStatus.PENDING ? null : status;
        }
    }

    Stored store(Connection c, Claimed claimed, String attemptId, Instant started, AttemptResult result)
            throws SQLException {
        Instant now = config.clock().instant();
        boolean success = result.succeeded();
        // 1. the endpoint row first: the lock order of every writer
        try (PreparedStatement s = c.prepareStatement(success ? DispatchSql.CLEAR_FAILING : DispatchSql.MARK_FAILING)) {
            int i = 1;
            if (!success) {
                s.setLong(i++, started.toEpochMilli());
            }
            s.setString(i, claimed.endpointId());
            s.executeUpdate();
        }
        Optional<Duration> pause = config.schedule().slowDownFor(result);
        if (pause.isPresent() && !pause.get().isZero()) {
            long until = now.plus(pause.get()).toEpochMilli();
            try (PreparedStatement s = c.prepareStatement(DispatchSql.SLOW_DOWN)) {
                s.setLong(1, until);
                s.setString(2, claimed.endpointId());
                s.setLong(3, until);
                s.executeUpdate();
            }
        }
        EndpointState endpoint = endpointState(c, claimed.endpointId());
        if (endpoint == null) {
            return new Stored(null, false); // deleted meanwhile, with its deliveries
        }
        DisabledReason disable = null;
        if (!success && endpoint.enabled() && !endpoint.paused()) { // paused: nothing fails, nothing disables
            if (dev.retrysafe.delivery.RetrySchedule.isGone(result)) {
                disable = DisabledReason.GONE;
            } else if (endpoint.failingSince() != null
                    && !now.isBefore(endpoint.failingSince().plus(config.disableAfter()))) {
                disable = DisabledReason.FAILING;
            }
        }
        boolean disabledNow = disable != null && EndpointStore.disable(c, claimed.endpointId(), disable, now);
        if (disabledNow) {
            config.eventSink().append(c, disabledEvent(claimed.endpointId(), endpoint, disable, now));
        }
        // 2. the attempt log, 3. the delivery (fenced by the claim's token)
        insertAttempt(c, claimed, attemptId, started, result);
        DeliveryStatus status;
        Instant next = null;
        if (success) {
            status = DeliveryStatus.SUCCEEDED;
        } else if (!endpoint.enabled() || disable != null) {
            status = DeliveryStatus.FAILED;
        } else {
            Optional<Duration> delay = config.schedule().nextAfter(claimed.attempts() + 1, result, config.random());
            status = delay.isPresent() ? DeliveryStatus.PENDING : DeliveryStatus.FAILED;
            next = delay.map(now::plus).orElse(null);
        }
        int updated;
        try (PreparedStatement s = c.prepareStatement(DispatchSql.FINISH_ATTEMPT)) {
            s.setString(1, status.wireName());
            Jdbc.setMillis(s, 2, next);
            s.setLong(3, started.toEpochMilli());
            s.setString(4, result.outcome().name());
            Jdbc.setInteger(s, 5, result.status());
            s.setString(6, claimed.id());
            s.setString(7, claimed.leaseToken());
            updated = s.executeUpdate();
        }
        if (updated == 0) {
            LOG.log(
                    Level.WARNING,
                    "dispatcher {0}: the lease on delivery {1} ran out during its attempt; "
                            + "the attempt is logged, the delivery is left to its new holder",
                    config.instanceId(),
                    claimed.id());
            return new Stored(null, disabledNow);
        }
        String key = claimed.orderingKey();
        if (status != DeliveryStatus.PENDING && key != null) {
            KeyOrder.finished(c, claimed.endpointId(), key, now); // the next of its key
        }
        return new Stored(status, disabledNow);
    }

    private void insertAttempt(Connection c, Claimed claimed, String attemptId, Instant started, AttemptResult result)
            throws SQLException {
        try (PreparedStatement s = c.prepareStatement(DispatchSql.INSERT_ATTEMPT)) {
            bindAttempt(s, claimed, attemptId, started, result);
            s.executeUpdate();
        }
    }

    /** Binds {@link DispatchSql#INSERT_ATTEMPT} for one attempt. */
    static void bindAttempt(
            PreparedStatement s, Claimed claimed, String attemptId, Instant started, AttemptResult result)
            throws SQLException {
        s.setString(1, attemptId);
        s.setInt(2, claimed.attempts() + 1);
        s.setLong(3, started.toEpochMilli());
        s.setString(4, result.outcome().name());
        Jdbc.setInteger(s, 5, result.status());
        s.setLong(6, Math.max(0, result.latency().toMillis()));
        s.setString(7, truncate(result.snippet()));
        s.setString(8, truncate(result.detail()));
        s.setString(9, claimed.id());
    }

    private record EndpointState(
            String accountId,
            String url,
            boolean enabled,
            @Nullable Instant failingSince,
            boolean paused) {}

    private static @Nullable EndpointState endpointState(Connection c, String endpointId) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(DispatchSql.SELECT_ENDPOINT_STATE)) {
            s.setString(1, endpointId);
            try (ResultSet r = s.executeQuery()) {
                return r.next()
                        ? new EndpointState(
                                r.getString("account_id"),
                                r.getString("url"),
                                r.getBoolean("enabled"),
                                Rows.millis(r, "failing_since"),
                                Rows.millis(r, "paused_at") != null)
                        : null;
            }
        }
    }

    /**
     * The {@code webhook_endpoint.disabled} event: {@code {id, type, timestamp, data}} like every
     * event, {@code data} describing the endpoint (never its secret).
     */
    private static OutboxEvent disabledEvent(
            String endpointId, EndpointState endpoint, DisabledReason reason, Instant now) {
        String id = ResourceIds.next(ResourceIds.EVENT, now);
        String type = EventSink.ENDPOINT_DISABLED;
        String json = "{\"id\":" + JsonStrings.document(id)
                + ",\"type\":" + JsonStrings.document(type)
                + ",\"timestamp\":" + JsonStrings.document(now.toString())
                + ",\"data\":{\"object\":\"webhook_endpoint\""
                + ",\"id\":" + JsonStrings.document(endpointId)
                + ",\"url\":" + JsonStrings.document(endpoint.url())
                + ",\"enabled\":false"
                + ",\"disabled_reason\":" + JsonStrings.document(reason.wireName())
                + ",\"failing_since\":"
                + (endpoint.failingSince() == null
                        ? "null"
                        : JsonStrings.document(endpoint.failingSince().toString()))
                + "}}";
        return new OutboxEvent(id, endpoint.accountId(), type, now, json.getBytes(StandardCharsets.UTF_8));
    }

    static String truncate(String s) {
        return s.length() <= MAX_DETAIL_CHARS ? s : s.substring(0, MAX_DETAIL_CHARS);
    }
}
