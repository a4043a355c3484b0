package dev.retrysafe.delivery.internal;

import dev.retrysafe.delivery.AttemptBucket;
import dev.retrysafe.delivery.Delivery;
import dev.retrysafe.delivery.DeliveryAttempt;
import dev.retrysafe.delivery.DeliveryDetail;
import dev.retrysafe.delivery.DeliveryStatus;
import dev.retrysafe.delivery.DeliveryStoreException;
import dev.retrysafe.delivery.DisabledReason;
import dev.retrysafe.delivery.EndpointHealth;
import dev.retrysafe.delivery.EndpointUpdate;
import dev.retrysafe.delivery.EndpointWithSecret;
import dev.retrysafe.delivery.NewEndpoint;
import dev.retrysafe.delivery.Page;
import dev.retrysafe.delivery.PageRequest;
import dev.retrysafe.delivery.RetryOutcome;
import dev.retrysafe.delivery.WebhookEndpoint;
import dev.retrysafe.leasedwork.internal.Jdbc;
import dev.retrysafe.webhooks.WebhookSecret;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import javax.sql.DataSource;

/**
 * Endpoint management and the delivery log over JDBC. Every statement is scoped by account.
 * Writes that touch an endpoint and its deliveries lock the endpoint row first, the same order
 * the dispatcher uses, so the two cannot deadlock. Threadsafe.
 */
public final class EndpointStore {

    private final Jdbc jdbc;
    private final Clock clock;
    private final Duration rotationGrace;

    /** A store over {@code dataSource}. */
    public EndpointStore(DataSource dataSource, Clock clock, Duration rotationGrace) {
        this.jdbc = new Jdbc(dataSource, DeliveryStoreException::new);
        this.clock = clock;
        this.rotationGrace = rotationGrace;
    }

    public EndpointWithSecret create(String accountId, NewEndpoint request) {
        Instant now = clock.instant();
        String id = ResourceIds.next(ResourceIds.ENDPOINT, now);
        WebhookSecret secret = WebhookSecret.generate();
        return jdbc.transaction("create webhook endpoint", c -> {
            try (PreparedStatement s = c.prepareStatement(EndpointSql.INSERT_ENDPOINT)) {
                s.setString(1, id);
                s.setString(2, accountId);
                s.setString(3, request.url().toString());
                s.setString(4, request.description());
                s.setString(5, secret.encoded());
                s.setLong(6, now.toEpochMilli());
                s.setLong(7, now.toEpochMilli());
                Jdbc.setInteger(s, 8, request.rateLimit());
                s.setBoolean(9, request.ordered());
                s.executeUpdate();
            }
            insertEventTypes(c, id, request.eventTypes());
            if (!request.headers().isEmpty()) {
                setCustomHeaders(c, id, request.headers());
            }
            return new EndpointWithSecret(read(c, accountId, id, false).orElseThrow(), secret);
        });
    }

    public Optional<WebhookEndpoint> get(String accountId, String id) {
        return jdbc.autocommit("read webhook endpoint " + id, c -> read(c, accountId, id, false));
    }

    public Page<WebhookEndpoint> list(String accountId, PageRequest page) {
        return jdbc.autocommit("list webhook endpoints", c -> {
            List<Row> rows = new ArrayList<>();
            try (PreparedStatement s = c.prepareStatement(
                    page.startingAfter() == null ? EndpointSql.LIST_FIRST : EndpointSql.LIST_AFTER)) {
                int i = 1;
                s.setString(i++, accountId);
                if (page.startingAfter() != null) {
                    s.setString(i++, page.startingAfter());
                }
                s.setInt(i, page.limit() + 1); // one more than asked tells whether more follow
                try (ResultSet r = s.executeQuery()) {
                    while (r.next()) {
                        rows.add(new Row(r.getString("id"), DeliveryRows.endpoint(r, Set.of("*"))));
                    }
                }
            }
            boolean hasMore = rows.size() > page.limit();
            List<Row> items = hasMore ? rows.subList(0, page.limit()) : rows;
            if (items.isEmpty()) {
                return new Page<>(List.of(), false);
            }
            // newest first: the last id is the lowest
            Map<String, Set<String>> types = eventTypesInRange(
                    c, accountId, items.getLast().id(), items.getFirst().id());
            List<WebhookEndpoint> endpoints = new ArrayList<>(items.size());
            for (Row row : items) {
                WebhookEndpoint e = row.endpoint();
                endpoints.add(withTypes(e, types.getOrDefault(e.id(), Set.of())));
            }
            return new Page<>(endpoints, hasMore);
        });
    }

    public Optional<WebhookEndpoint> update(String accountId, String id, EndpointUpdate update) {
        return jdbc.transaction("update webhook endpoint " + id, c -> {
            Optional<WebhookEndpoint> current = read(c, accountId, id, true);
            if (current.isEmpty()) {
                return Optional.<WebhookEndpoint>empty();
            }
            Instant now = clock.instant();
            WebhookEndpoint e = current.get();
            try (PreparedStatement s = c.prepareStatement(EndpointSql.UPDATE_FIELDS)) {
                s.setString(1, (update.url() == null ? e.url() : update.url()).toString());
                s.setString(2, update.description() == null ? e.description() : update.description());
                Jdbc.setInteger(
                        s,
                        3,
                        update.removeRateLimit()
                                ? null
                                : update.rateLimit() == null ? e.rateLimit() : update.rateLimit());
                s.setBoolean(4, update.ordered() == null ? e.ordered() : update.ordered());
                s.setLong(5, now.toEpochMilli());
                s.setString(6, accountId);
                s.setString(7, id);
                s.executeUpdate();
            }
            if (Boolean.FALSE.equals(update.ordered()) && e.ordered() && !e.paused()) {
                Holds.releaseAll(c, id); // no turn to wait for any more (paused: resume releases them)
            }
            if (update.eventTypes() != null) {
                try (PreparedStatement s = c.prepareStatement(EndpointSql.DELETE_EVENT_TYPES)) {
                    s.setString(1, id);
                    s.executeUpdate();
                }
                insertEventTypes(c, id, update.eventTypes());
            }
            if (update.headers() != null) {
                setCustomHeaders(c, id, update.headers());
            }
            if (Boolean.TRUE.equals(update.enabled()) && !e.enabled()) {
                enable(c, accountId, id, now);
            } else if (Boolean.FALSE.equals(update.enabled()) && e.enabled()) {
                disable(c, id, DisabledReason.MANUAL, now);
            }
            return read(c, accountId, id, false);
        });
    }

    public boolean delete(String accountId, String id) {
        return jdbc.transaction("delete webhook endpoint " + id, c -> {
            // the endpoint row first (the lock order everywhere), then its deliveries
            int deleted;
            try (PreparedStatement s = c.prepareStatement(EndpointSql.DELETE_ENDPOINT)) {
                s.setString(1, accountId);
                s.setString(2, id);
                deleted = s.executeUpdate();
            }
            if (deleted == 0) {
                return false;
            }
            try (PreparedStatement s = c.prepareStatement(EndpointSql.DELETE_DELIVERIES)) {
                s.setString(1, accountId);
                s.setString(2, id);
                s.executeUpdate();
            }
            return true;
        });
    }

    public Optional<EndpointWithSecret> rotateSecret(String accountId, String id, Duration grace) {
        Instant now = clock.instant();
        WebhookSecret secret = WebhookSecret.generate();
        return jdbc.transaction("rotate secret of webhook endpoint " + id, c -> {
            try (PreparedStatement s = c.prepareStatement(EndpointSql.ROTATE_SECRET)) {
                s.setString(1, secret.encoded());
                s.setLong(2, now.plus(grace).toEpochMilli());
                s.setLong(3, now.toEpochMilli());
                s.setString(4, accountId);
                s.setString(5, id);
                if (s.executeUpdate() == 0) {
                    return Optional.<EndpointWithSecret>empty();
                }
            }
            return read(c, accountId, id, false).map(e -> new EndpointWithSecret(e, secret));
        });
    }

    public Optional<EndpointWithSecret> rotateSecret(String accountId, String id) {
        return rotateSecret(accountId, id, rotationGrace);
    }

    public Optional<WebhookSecret> secret(String accountId, String id) {
        return jdbc.autocommit("read secret of webhook endpoint " + id, c -> {
            try (PreparedStatement s = c.prepareStatement(EndpointSql.SELECT_SECRET)) {
                s.setString(1, accountId);
                s.setString(2, id);
                try (ResultSet r = s.executeQuery()) {
                    return r.next()
                            ? Optional.of(WebhookSecret.parse(r.getString(1)))
                            : Optional.<WebhookSecret>empty();
                }
            }
        });
    }

    public Optional<WebhookEndpoint> enable(String accountId, String id) {
        return jdbc.transaction(
                "enable webhook endpoint " + id,
                c -> enable(c, accountId, id, clock.instant())
                        ? read(c, accountId, id, false)
                        : Optional.<WebhookEndpoint>empty());
    }

    /** Pauses (a paused endpoint stays as it is); empty if there is no such endpoint. */
    public Optional<WebhookEndpoint> pause(String accountId, String id) {
        return jdbc.transaction("pause webhook endpoint " + id, c -> {
            if (read(c, accountId, id, true).isEmpty()) { // the endpoint row first, then its deliveries
                return Optional.<WebhookEndpoint>empty();
            }
            Holds.pause(c, accountId, id, clock.instant());
            return read(c, accountId, id, false);
        });
    }

    /** Resumes (an endpoint that is not paused stays as it is); empty if there is no such endpoint. */
    public Optional<WebhookEndpoint> resume(String accountId, String id) {
        return jdbc.transaction("resume webhook endpoint " + id, c -> {
            Optional<WebhookEndpoint> current = read(c, accountId, id, true);
            if (current.isEmpty()) {
                return Optional.<WebhookEndpoint>empty();
            }
            Holds.resume(c, accountId, id, current.get().ordered(), clock.instant());
            return read(c, accountId, id, false);
        });
    }

    public Optional<Page<Delivery>> deliveries(String accountId, String endpointId, PageRequest page) {
        return jdbc.autocommit(
                "list deliveries of webhook endpoint " + endpointId,
                c -> read(c, accountId, endpointId, false).isEmpty()
                        ? Optional.<Page<Delivery>>empty()
                        : Optional.of(deliveryPage(
                                c,
                                EndpointSql.LIST_DELIVERIES_FIRST,
                                EndpointSql.LIST_DELIVERIES_AFTER,
                                accountId,
                                endpointId,
                                page)));
    }

    public Page<Delivery> eventDeliveries(String accountId, String eventId, PageRequest page) {
        return jdbc.autocommit(
                "list deliveries of event " + eventId,
                c -> deliveryPage(
                        c,
                        EndpointSql.LIST_EVENT_DELIVERIES_FIRST,
                        EndpointSql.LIST_EVENT_DELIVERIES_AFTER,
                        accountId,
                        eventId,
                        page));
    }

    public Map<String, EndpointHealth> health(String accountId, Collection<String> endpointIds, Instant since) {
        return jdbc.autocommit(
                "read health of webhook endpoints", c -> AttemptStats.health(c, accountId, endpointIds, since));
    }

    public List<AttemptBucket> attemptsPerHour(String accountId, Instant from, int hours) {
        return jdbc.autocommit("count attempts per hour", c -> AttemptStats.perHour(c, accountId, from, hours));
    }

    public Optional<DeliveryDetail> delivery(String accountId, String deliveryId) {
        return jdbc.autocommit("read delivery " + deliveryId, c -> {
            Delivery delivery;
            byte[] payload;
            try (PreparedStatement s = c.prepareStatement(EndpointSql.SELECT_DELIVERY)) {
                s.setString(1, accountId);
                s.setString(2, deliveryId);
                try (ResultSet r = s.executeQuery()) {
                    if (!r.next()) {
                        return Optional.<DeliveryDetail>empty();
                    }
                    delivery = DeliveryRows.delivery(r);
                    payload = r.getBytes("payload");
                }
            }
            List<DeliveryAttempt> attempts = new ArrayList<>();
            try (PreparedStatement s = c.prepareStatement(EndpointSql.SELECT_ATTEMPTS)) {
                s.setString(1, deliveryId);
                try (ResultSet r = s.executeQuery()) {
                    while (r.next()) {
                        attempts.add(DeliveryRows.attempt(r));
                    }
                }
            }
            return Optional.of(new DeliveryDetail(delivery, payload, attempts));
        });
    }

    public RetryOutcome retry(String accountId, String deliveryId) {
        Instant now = clock.instant();
        return jdbc.transaction("retry delivery " + deliveryId, c -> {
            String endpointId;
            try (PreparedStatement s = c.prepareStatement(EndpointSql.SELECT_DELIVERY_ENDPOINT)) {
                s.setString(1, accountId);
                s.setString(2, deliveryId);
                try (ResultSet r = s.executeQuery()) {
                    if (!r.next()) {
                        return new RetryOutcome.NotFound();
                    }
                    endpointId = r.getString(1);
                }
            }
            // the endpoint row first (the lock order everywhere): a concurrent disable either
            // ran before (we see it) or waits and then fails what we made pending
            boolean enabled;
            try (PreparedStatement s = c.prepareStatement(EndpointSql.LOCK_ENDPOINT_ENABLED)) {
                s.setString(1, endpointId);
                try (ResultSet r = s.executeQuery()) {
                    if (!r.next()) {
                        return new RetryOutcome.NotFound(); // deleted meanwhile, with its deliveries
                    }
                    enabled = r.getBoolean(1);
                }
            }
            if (enabled) {
                try (PreparedStatement s = c.prepareStatement(EndpointSql.RETRY_DELIVERY)) {
                    s.setLong(1, now.toEpochMilli());
                    s.setString(2, accountId);
                    s.setString(3, deliveryId);
                    s.executeUpdate();
                }
            }
            Optional<Delivery> after = readDelivery(c, accountId, deliveryId);
            if (after.isEmpty()) {
                return new RetryOutcome.NotFound();
            }
            Delivery d = after.get();
            if (!enabled) {
                return new RetryOutcome.NotRetryable(d, RetryOutcome.Reason.ENDPOINT_DISABLED);
            }
            // due now means our update took it (or someone else made it due now: the same thing)
            return d.status() == DeliveryStatus.PENDING
                            && d.nextAttemptAt() != null
                            && !d.nextAttemptAt().isAfter(now)
                    ? new RetryOutcome.Retried(d)
                    : new RetryOutcome.NotRetryable(d, RetryOutcome.Reason.ATTEMPT_UNDER_WAY);
        });
    }

    public OptionalInt recover(String accountId, String endpointId, Instant since) {
        Instant now = clock.instant();
        return jdbc.transaction("recover deliveries of webhook endpoint " + endpointId, c -> {
            Optional<WebhookEndpoint> endpoint = read(c, accountId, endpointId, true);
            if (endpoint.isEmpty()) {
                return OptionalInt.empty();
            }
            int recovered;
            try (PreparedStatement s = c.prepareStatement(EndpointSql.RECOVER_DELIVERIES)) {
                s.setLong(1, now.toEpochMilli());
                s.setString(2, accountId);
                s.setString(3, endpointId);
                s.setLong(4, since.toEpochMilli());
                recovered = s.executeUpdate();
            }
            if (endpoint.get().paused()) {
                // recovered while paused: held with the rest, sent on resume
                Holds.hold(c, endpointId);
            }
            return OptionalInt.of(recovered);
        });
    }

    // --- shared with the dispatcher --------------------------------------------------------

    /**
     * Disables an enabled endpoint and fails its pending deliveries; false if it was not enabled
     * (someone else disabled it first). Run it in a transaction that locked no delivery before.
     */
    static boolean disable(Connection c, String id, DisabledReason reason, Instant now) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(EndpointSql.DISABLE)) {
            s.setString(1, reason.wireName());
            s.setLong(2, now.toEpochMilli());
            s.setString(3, id);
            if (s.executeUpdate() == 0) {
                return false;
            }
        }
        try (PreparedStatement s = c.prepareStatement(EndpointSql.FAIL_PENDING_DELIVERIES)) {
            s.setString(1, id);
            s.executeUpdate();
        }
        return true;
    }

    // --- helpers ------------------------------------------------------------------------------

    private static boolean enable(Connection c, String accountId, String id, Instant now) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(EndpointSql.ENABLE)) {
            s.setLong(1, now.toEpochMilli());
            s.setString(2, accountId);
            s.setString(3, id);
            return s.executeUpdate() == 1;
        }
    }

    private static Optional<WebhookEndpoint> read(Connection c, String accountId, String id, boolean lock)
            throws SQLException {
        WebhookEndpoint endpoint;
        try (PreparedStatement s =
                c.prepareStatement(lock ? EndpointSql.SELECT_ENDPOINT_FOR_UPDATE : EndpointSql.SELECT_ENDPOINT)) {
            s.setString(1, accountId);
            s.setString(2, id);
            try (ResultSet r = s.executeQuery()) {
                if (!r.next()) {
                    return Optional.empty();
                }
                endpoint = DeliveryRows.endpoint(r, Set.of("*"));
            }
        }
        Set<String> types = new LinkedHashSet<>();
        try (PreparedStatement s = c.prepareStatement(EndpointSql.SELECT_EVENT_TYPES)) {
            s.setString(1, id);
            try (ResultSet r = s.executeQuery()) {
                while (r.next()) {
                    types.add(r.getString(1));
                }
            }
        }
        return Optional.of(withTypes(endpoint, types));
    }

    private static Optional<Delivery> readDelivery(Connection c, String accountId, String id) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(EndpointSql.SELECT_DELIVERY)) {
            s.setString(1, accountId);
            s.setString(2, id);
            try (ResultSet r = s.executeQuery()) {
                return r.next() ? Optional.of(DeliveryRows.delivery(r)) : Optional.empty();
            }
        }
    }

    /** A page of deliveries newest first; params of both statements: account, {@code key}, [cursor], limit. */
    private static Page<Delivery> deliveryPage(
            Connection c, String first, String after, String accountId, String key, PageRequest page)
            throws SQLException {
        List<Delivery> rows = new ArrayList<>();
        try (PreparedStatement s = c.prepareStatement(page.startingAfter() == null ? first : after)) {
            int i = 1;
            s.setString(i++, accountId);
            s.setString(i++, key);
            if (page.startingAfter() != null) {
                s.setString(i++, page.startingAfter());
            }
            s.setInt(i, page.limit() + 1); // one more than asked tells whether more follow
            try (ResultSet r = s.executeQuery()) {
                while (r.next()) {
                    rows.add(DeliveryRows.delivery(r));
                }
            }
        }
        boolean hasMore = rows.size() > page.limit();
        return new Page<>(hasMore ? rows.subList(0, page.limit()) : rows, hasMore);
    }

    private static Map<String, Set<String>> eventTypesInRange(Connection c, String accountId, String low, String high)
            throws SQLException {
        Map<String, Set<String>> out = new HashMap<>();
        try (PreparedStatement s = c.prepareStatement(EndpointSql.SELECT_EVENT_TYPES_IN_RANGE)) {
            s.setString(1, accountId);
            s.setString(2, low);
            s.setString(3, high);
            try (ResultSet r = s.executeQuery()) {
                while (r.next()) {
                    out.computeIfAbsent(r.getString(1), k -> new LinkedHashSet<>())
                            .add(r.getString(2));
                }
            }
        }
        return out;
    }

    private static void insertEventTypes(Connection c, String id, Set<String> types) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(EndpointSql.INSERT_EVENT_TYPE)) {
            for (String type : types) {
                s.setString(1, id);
                s.setString(2, type);
                s.addBatch();
            }
            s.executeBatch();
        }
    }

    private static void setCustomHeaders(Connection c, String id, Map<String, String> headers) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(EndpointSql.SET_CUSTOM_HEADERS)) {
            s.setString(1, CustomHeaders.encode(headers));
            s.setString(2, id);
            s.executeUpdate();
        }
    }

    private static WebhookEndpoint withTypes(WebhookEndpoint e, Set<String> types) {
        return new WebhookEndpoint(
                e.id(),
                e.accountId(),
                e.url(),
                e.description(),
                types,
                e.enabled(),
                e.disabledReason(),
                e.createdAt(),
                e.updatedAt(),
                e.failingSince(),
                e.previousSecretExpiresAt(),
                e.rateLimit(),
                e.pausedAt(),
                e.ordered(),
                e.headerNames());
    }

    private record Row(String id, WebhookEndpoint endpoint) {}
}
