package dev.retrysafe.delivery;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.retrysafe.delivery.AttemptResult.Outcome;
import dev.retrysafe.testkit.FakeClock;
import dev.retrysafe.testkit.PooledDataSource;
import dev.retrysafe.testkit.ThrowawayDatabase;
import dev.retrysafe.webhooks.HeaderLookup;
import dev.retrysafe.webhooks.WebhookSecret;
import dev.retrysafe.webhooks.WebhookVerificationException;
import dev.retrysafe.webhooks.WebhookVerifier;
import java.net.URI;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The behaviour of the outbox, the endpoint store and the dispatcher over a real database,
 * written once and run against H2 and PostgreSQL by subclasses. Time only moves when a test
 * moves the {@link FakeClock}; the dispatcher is driven with {@link Dispatcher#dispatchDue()}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class DeliveryContract {

    static final String ACCOUNT = "acct_1";
    static final String OTHER_ACCOUNT = "acct_2";
    static final URI URL_A = URI.create("https://a.example.com/hooks");
    static final URI URL_B = URI.create("https://b.example.com/hooks");
    static final URI URL_C = URI.create("https://c.example.com/hooks");
    static final RetrySchedule NO_JITTER = RetrySchedule.builder().jitter(0).build();

    private ThrowawayDatabase database;
    PooledDataSource dataSource;
    FakeClock clock;
    FakeSender sender;
    WebhookEndpoints endpoints;
    Outbox outbox;
    private final List<Dispatcher> dispatchers = new java.util.ArrayList<>();

    /** A new, empty database of this test class's own. */
    protected abstract ThrowawayDatabase openDatabase();

    @BeforeAll
    void createSchema() throws SQLException {
        database = openDatabase();
        dataSource = new PooledDataSource(database.dataSource(), 8);
        try (Connection c = dataSource.getConnection();
                Statement s = c.createStatement()) {
            s.execute(DeliverySchema.schemaSql()); // the whole script in one execute, as a migration runs it
            s.execute("CREATE TABLE payments (id VARCHAR(64) PRIMARY KEY)");
        }
    }

    @AfterAll
    void dropDatabase() throws SQLException {
        if (dataSource != null) {
            dataSource.close();
        }
        if (database != null) {
            database.close();
        }
    }

    @BeforeEach
    void emptyTables() throws SQLException {
        try (Connection c = dataSource.getConnection();
                Statement s = c.createStatement()) {
            for (String table : List.of(
                    "delivery_attempts",
                    "deliveries",
                    "delivery_ordering_keys",
                    "webhook_endpoint_event_types",
                    "webhook_endpoints",
                    "payments")) {
                s.execute("DELETE FROM " + table);
            }
        }
        clock = new FakeClock(Instant.parse("2026-03-01T10:00:00Z"));
        sender = new FakeSender(clock);
        endpoints = WebhookEndpoints.builder(dataSource).clock(clock).build();
        outbox = Outbox.create();
    }

    @AfterEach
    void everyConnectionWasReturned() {
        dispatchers.forEach(Dispatcher::close);
        dispatchers.clear();
        assertThat(dataSource.borrowed()).as("connections left open").isZero();
    }

    // --- outbox ----------------------------------------------------------------------------

    @Test
    void rolledBackTransactionEmitsNoDelivery() throws SQLException {
        endpoint(ACCOUNT, URL_A, "*");
        try (Connection tx = dataSource.getConnection()) {
            tx.setAutoCommit(false);
            insertPayment(tx, "pay_1");
            outbox.append(tx, event(ACCOUNT, "payment.succeeded"));
            assertThat(count(tx, "deliveries"))
                    .as("visible inside the transaction")
                    .isEqualTo(1);
            tx.rollback();
            tx.setAutoCommit(true);
        }
        assertThat(count("deliveries")).isZero();
        assertThat(count("payments")).isZero();
    }

    @Test
    void committedTransactionAlwaysHasItsDeliveries() throws SQLException {
        endpoint(ACCOUNT, URL_A, "*");
        OutboxEvent event = event(ACCOUNT, "payment.succeeded");
        try (Connection tx = dataSource.getConnection()) {
            tx.setAutoCommit(false);
            insertPayment(tx, "pay_1");
            outbox.append(tx, event);
            tx.commit();
            tx.setAutoCommit(true);
        }
        assertThat(count("payments")).isEqualTo(1);
        Delivery d = onlyDelivery(ACCOUNT);
        assertThat(d.eventId()).isEqualTo(event.id());
        assertThat(d.status()).isEqualTo(DeliveryStatus.PENDING);
        assertThat(d.nextAttemptAt()).isEqualTo(event.createdAt());
        assertThat(endpoints.delivery(ACCOUNT, d.id()).orElseThrow().payload()).isEqualTo(event.payload());
    }

    @Test
    void everyDeliveryOfAnEventKeepsItsOrderingKeyAndTraceContext() throws SQLException {
        endpoint(ACCOUNT, URL_A, "*");
        endpoint(ACCOUNT, URL_B, "payment.*");
        String traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
        OutboxEvent event =
                event(ACCOUNT, "payment.succeeded").withOrderingKey("pay_1").withTraceparent(traceparent);
        OutboxEvent plain = event(ACCOUNT, "payment.created");
        try (Connection tx = dataSource.getConnection()) {
            tx.setAutoCommit(false);
            outbox.append(tx, event);
            outbox.append(tx, plain);
            tx.commit();
            tx.setAutoCommit(true);
        }
        try (Connection c = dataSource.getConnection();
                Statement s = c.createStatement();
                ResultSet r = s.executeQuery(
                        "SELECT event_id, ordering_key, traceparent FROM deliveries ORDER BY event_id, endpoint_id")) {
            List<String> rows = new ArrayList<>();
            while (r.next()) {
                rows.add(r.getString(1) + " " + r.getString(2) + " " + r.getString(3));
            }
            assertThat(rows)
                    .containsExactlyInAnyOrder(
                            event.id() + " pay_1 " + traceparent,
                            event.id() + " pay_1 " + traceparent,
                            plain.id() + " null null",
                            plain.id() + " null null");
        }
    }

    @Test
    void fanOutRespectsSubscriptionsDisabledEndpointsAndAccounts() {
        String exact = endpoint(ACCOUNT, URL_A, "payment.succeeded");
        String all = endpoint(ACCOUNT, URL_B, "*");
        String otherType = endpoint(ACCOUNT, URL_C, "refund.created");
        String disabled = endpoint(ACCOUNT, URL_C, "payment.succeeded");
        endpoints.update(
                ACCOUNT, disabled, EndpointUpdate.builder().enabled(false).build());
        String otherAccount = endpoint(OTHER_ACCOUNT, URL_A, "*");

        int made = inTransaction(tx -> outbox.appendCounting(tx, event(ACCOUNT, "payment.succeeded")));

        assertThat(made).isEqualTo(2);
        assertThat(deliveriesOf(exact)).hasSize(1);
        assertThat(deliveriesOf(all)).hasSize(1);
        assertThat(deliveriesOf(otherType)).isEmpty();
        assertThat(deliveriesOf(disabled)).isEmpty();
        assertThat(endpoints
                        .deliveries(OTHER_ACCOUNT, otherAccount, PageRequest.first(10))
                        .orElseThrow()
                        .items())
                .isEmpty();
    }

    @Test
    void fanOutHonoursPrefixPatternsOncePerEndpoint() {
        String prefix = endpoint(ACCOUNT, URL_A, "payment.*");
        String both = endpoint(ACCOUNT, URL_B, "payment.*", "payment.succeeded", "*");
        String otherPrefix = endpoint(ACCOUNT, URL_C, "refund.*");
        String lookalike = endpoint(ACCOUNT, URL_C, "pay.*");

        int made = inTransaction(tx -> outbox.appendCounting(tx, event(ACCOUNT, "payment.succeeded")));

        assertThat(made).isEqualTo(2);
        assertThat(deliveriesOf(prefix)).hasSize(1);
        assertThat(deliveriesOf(both))
                .as("one delivery, however many patterns take it")
                .hasSize(1);
        assertThat(deliveriesOf(otherPrefix)).isEmpty();
        assertThat(deliveriesOf(lookalike)).as("a prefix ends at a dot").isEmpty();
    }

    @Test
    void subscriptionsAreTheLiveStreamsPatterns() {
        assertThatThrownBy(() -> endpoint(ACCOUNT, URL_A, "payment.*.x")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> endpoint(ACCOUNT, URL_A, "*.succeeded")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> endpoint(ACCOUNT, URL_A, "Payment.Succeeded"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(EventTypePatterns.matches("payment.*", "payment.failed")).isTrue();
    }

    @Test
    void appendRefusesAnAutoCommitConnection() throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            assertThatThrownBy(() -> outbox.append(c, event(ACCOUNT, "payment.succeeded")))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("auto-commit");
        }
    }

    // --- endpoints -------------------------------------------------------------------------

    @Test
    void createdEndpointHasASecretAndAnotherAccountSeesNothingOfIt() {
        EndpointWithSecret created = endpoints.create(
                ACCOUNT, new NewEndpoint(URL_A, Set.of("payment.succeeded", "refund.created"), "main"));
        String id = created.endpoint().id();

        assertThat(id).startsWith("we_");
        assertThat(created.secret().encoded()).startsWith("whsec_");
        assertThat(created.secret().toString()).doesNotContain(created.secret().encoded());
        assertThat(endpoints.secret(ACCOUNT, id)).contains(created.secret());
        WebhookEndpoint read = endpoints.get(ACCOUNT, id).orElseThrow();
        assertThat(read.url()).isEqualTo(URL_A);
        assertThat(read.eventTypes()).containsExactlyInAnyOrder("payment.succeeded", "refund.created");
        assertThat(read.enabled()).isTrue();
        assertThat(read.createdAt()).isEqualTo(clock.instant());

        String delivery = deliverOneEvent(ACCOUNT);
        assertThat(endpoints.get(OTHER_ACCOUNT, id)).isEmpty();
        assertThat(endpoints.secret(OTHER_ACCOUNT, id)).isEmpty();
        assertThat(endpoints.rotateSecret(OTHER_ACCOUNT, id)).isEmpty();
        assertThat(endpoints.update(
                        OTHER_ACCOUNT,
                        id,
                        EndpointUpdate.builder().description("x").build()))
                .isEmpty();
        assertThat(endpoints.enable(OTHER_ACCOUNT, id)).isEmpty();
        assertThat(endpoints.deliveries(OTHER_ACCOUNT, id, PageRequest.first(10)))
                .isEmpty();
        assertThat(endpoints.delivery(OTHER_ACCOUNT, delivery)).isEmpty();
        assertThat(endpoints.retry(OTHER_ACCOUNT, delivery)).isEqualTo(new RetryOutcome.NotFound());
        assertThat(endpoints.recover(OTHER_ACCOUNT, id, Instant.EPOCH)).isEmpty();
        assertThat(endpoints.list(OTHER_ACCOUNT, PageRequest.first(10)).items()).isEmpty();
        assertThat(endpoints.delete(OTHER_ACCOUNT, id)).isFalse();
        assertThat(endpoints.get(ACCOUNT, id)).isPresent();
    }

    @Test
    void listPagesNewestFirstWithACursor() {
        String[] ids = new String[5];
        for (int i = 0; i < ids.length; i++) {
            ids[i] = endpoint(ACCOUNT, URL_A, "type" + i + ".created");
            clock.advance(Duration.ofMillis(1));
        }
        endpoint(OTHER_ACCOUNT, URL_A, "*");

        Page<WebhookEndpoint> first = endpoints.list(ACCOUNT, PageRequest.first(2));
        assertThat(first.items()).extracting(WebhookEndpoint::id).containsExactly(ids[4], ids[3]);
        assertThat(first.hasMore()).isTrue();
        assertThat(first.items().get(1).eventTypes()).containsExactly("type3.created");
        Page<WebhookEndpoint> second = endpoints.list(ACCOUNT, new PageRequest(2, ids[3]));
        assertThat(second.items()).extracting(WebhookEndpoint::id).containsExactly(ids[2], ids[1]);
        Page<WebhookEndpoint> last = endpoints.list(ACCOUNT, new PageRequest(2, ids[1]));
        assertThat(last.items()).extracting(WebhookEndpoint::id).containsExactly(ids[0]);
        assertThat(last.hasMore()).isFalse();
    }

    @Test
    void updateChangesOnlyTheGivenFieldsAndReplacesEventTypes() {
        String id = endpoint(ACCOUNT, URL_A, "payment.succeeded");
        clock.advance(Duration.ofMinutes(1));

        WebhookEndpoint updated = endpoints
                .update(
                        ACCOUNT,
                        id,
                        EndpointUpdate.builder()
                                .url(URL_B)
                                .eventTypes(Set.of("refund.created", "*"))
                                .build())
                .orElseThrow();

        assertThat(updated.url()).isEqualTo(URL_B);
        assertThat(updated.description()).isEqualTo("test endpoint");
        assertThat(updated.eventTypes()).containsExactlyInAnyOrder("refund.created", "*");
        assertThat(updated.updatedAt()).isEqualTo(clock.instant());
        assertThat(updated.enabled()).isTrue();
    }

    @Test
    void disablingFailsWaitingDeliveriesAndEnablingForgetsTheFailingStreak() {
        String id = endpoint(ACCOUNT, URL_A, "*");
        String delivery = deliverOneEvent(ACCOUNT);
        sender.respond((url, d) -> FakeSender.status(500));
        dispatcher().dispatchDue();
        assertThat(endpoints.get(ACCOUNT, id).orElseThrow().failingSince()).isEqualTo(clock.instant());

        WebhookEndpoint disabled = endpoints
                .update(ACCOUNT, id, EndpointUpdate.builder().enabled(false).build())
                .orElseThrow();
        assertThat(disabled.enabled()).isFalse();
        assertThat(disabled.disabledReason()).isEqualTo(DisabledReason.MANUAL);
        assertThat(status(delivery)).isEqualTo(DeliveryStatus.FAILED);

        WebhookEndpoint enabled = endpoints.enable(ACCOUNT, id).orElseThrow();
        assertThat(enabled.enabled()).isTrue();
        assertThat(enabled.disabledReason()).isNull();
        assertThat(enabled.failingSince()).isNull();
        assertThat(status(delivery))
                .as("failed deliveries stay failed until recovered")
                .isEqualTo(DeliveryStatus.FAILED);
    }

    @Test
    void deleteRemovesTheEndpointWithItsDeliveriesAndAttempts() throws SQLException {
        String id = endpoint(ACCOUNT, URL_A, "*");
        deliverOneEvent(ACCOUNT);
        dispatcher().dispatchDue();
        assertThat(count("delivery_attempts")).isEqualTo(1);

        assertThat(endpoints.delete(ACCOUNT, id)).isTrue();

        assertThat(endpoints.get(ACCOUNT, id)).isEmpty();
        assertThat(count("deliveries")).isZero();
        assertThat(count("delivery_attempts")).isZero();
        assertThat(count("webhook_endpoint_event_types")).isZero();
        assertThat(endpoints.delete(ACCOUNT, id)).isFalse();
    }

    @Test
    void retryMakesAFailedDeliveryDueNow() {
        endpoint(ACCOUNT, URL_A, "*");
        String delivery = deliverOneEvent(ACCOUNT);
        sender.respond((url, d) -> FakeSender.status(400));
        Dispatcher dispatcher = dispatcher(
                RetrySchedule.builder().delays(Duration.ZERO).jitter(0).build());
        dispatcher.dispatchDue();
        assertThat(status(delivery)).as("one attempt in this schedule").isEqualTo(DeliveryStatus.FAILED);

        clock.advance(Duration.ofHours(3));
        RetryOutcome retried = endpoints.retry(ACCOUNT, delivery);
        assertThat(retried).isInstanceOfSatisfying(RetryOutcome.Retried.class, r -> {
            assertThat(r.delivery().status()).isEqualTo(DeliveryStatus.PENDING);
            assertThat(r.delivery().nextAttemptAt()).isEqualTo(clock.instant());
        });
        sender.respond((url, d) -> FakeSender.ok());
        assertThat(dispatcher.dispatchDue()).isEqualTo(1);
        assertThat(status(delivery)).isEqualTo(DeliveryStatus.SUCCEEDED);
        assertThat(endpoints.retry(ACCOUNT, "msg_nope")).isEqualTo(new RetryOutcome.NotFound());
    }

    @Test
    void retryOfASucceededDeliverySendsItAgainWithTheSameIdSignedAfresh() throws Exception {
        String id = endpoint(ACCOUNT, URL_A, "*");
        WebhookSecret secret = endpoints.secret(ACCOUNT, id).orElseThrow();
        String delivery = deliverOneEvent(ACCOUNT);
        Dispatcher dispatcher = dispatcher();
        assertThat(dispatcher.dispatchDue()).isEqualTo(1);
        assertThat(status(delivery)).isEqualTo(DeliveryStatus.SUCCEEDED);
        clock.advance(Duration.ofMinutes(10));

        RetryOutcome replay = endpoints.retry(ACCOUNT, delivery);

        assertThat(replay).isInstanceOfSatisfying(RetryOutcome.Retried.class, r -> {
            assertThat(r.delivery().status()).isEqualTo(DeliveryStatus.PENDING);
            assertThat(r.delivery().nextAttemptAt()).isEqualTo(clock.instant());
            assertThat(r.delivery().attempts()).isEqualTo(1);
        });
        assertThat(dispatcher.dispatchDue()).isEqualTo(1);
        List<FakeSender.Sent> sent = sender.sent();
        assertThat(sent).hasSize(2).extracting(FakeSender.Sent::deliveryId).containsOnly(delivery);
        assertThat(sent.get(1).body()).isEqualTo(sent.get(0).body());
        assertThat(sent.get(1).headers().get("webhook-timestamp"))
                .isEqualTo(Long.toString(clock.instant().getEpochSecond()))
                .isNotEqualTo(sent.get(0).headers().get("webhook-timestamp"));
        verifier(secret)
                .verify(HeaderLookup.of(sent.get(1).headers()), sent.get(1).body());
        DeliveryDetail detail = endpoints.delivery(ACCOUNT, delivery).orElseThrow();
        assertThat(detail.delivery().status()).isEqualTo(DeliveryStatus.SUCCEEDED);
        assertThat(detail.attempts()).extracting(DeliveryAttempt::number).containsExactly(1, 2);
        assertThat(dispatcher.metrics().firstAttemptLatency().count())
                .as("a replay is no first attempt")
                .isEqualTo(1);
    }

    @Test
    void retryIsRefusedWhileAnAttemptIsUnderWayAndWhenTheEndpointIsDisabled() throws SQLException {
        String id = endpoint(ACCOUNT, URL_A, "*");
        String delivery = deliverOneEvent(ACCOUNT);
        long leaseEnd = clock.instant().plus(Dispatcher.DEFAULT_LEASE).toEpochMilli();
        execute("UPDATE deliveries SET status = 'delivering', lease_owner = 'other', lease_token = 'x', "
                + "lease_expires_at = " + leaseEnd + ", next_attempt_at = " + leaseEnd);

        assertThat(endpoints.retry(ACCOUNT, delivery)).isInstanceOfSatisfying(RetryOutcome.NotRetryable.class, n -> {
            assertThat(n.reason()).isEqualTo(RetryOutcome.Reason.ATTEMPT_UNDER_WAY);
            assertThat(n.status()).isEqualTo(DeliveryStatus.DELIVERING);
        });
        assertThat(endpoints
                        .delivery(ACCOUNT, delivery)
                        .orElseThrow()
                        .delivery()
                        .nextAttemptAt())
                .as("the claim is left alone")
                .isEqualTo(Instant.ofEpochMilli(leaseEnd));

        execute("UPDATE deliveries SET status = 'succeeded', next_attempt_at = NULL, lease_owner = NULL, "
                + "lease_token = NULL, lease_expires_at = NULL");
        endpoints.update(ACCOUNT, id, EndpointUpdate.builder().enabled(false).build());
        assertThat(endpoints.retry(ACCOUNT, delivery)).isInstanceOfSatisfying(RetryOutcome.NotRetryable.class, n -> {
            assertThat(n.reason()).isEqualTo(RetryOutcome.Reason.ENDPOINT_DISABLED);
            assertThat(n.delivery().endpointId()).isEqualTo(id);
            assertThat(n.status()).isEqualTo(DeliveryStatus.SUCCEEDED);
        });
        assertThat(status(delivery)).isEqualTo(DeliveryStatus.SUCCEEDED);

        endpoints.enable(ACCOUNT, id);
        assertThat(endpoints.retry(ACCOUNT, delivery)).isInstanceOf(RetryOutcome.Retried.class);
    }

    @Test
    void recoverResendsFailedDeliveriesSinceATime() {
        String id = endpoint(ACCOUNT, URL_A, "*");
        String old = deliverOneEvent(ACCOUNT);
        clock.advance(Duration.ofHours(1));
        Instant since = clock.instant();
        String recent = deliverOneEvent(ACCOUNT);
        sender.respond((url, d) -> FakeSender.status(500));
        Dispatcher dispatcher = dispatcher(
                RetrySchedule.builder().delays(Duration.ZERO).jitter(0).build());
        assertThat(dispatcher.dispatchDue()).isEqualTo(2);

        assertThat(endpoints.recover(ACCOUNT, id, since)).hasValue(1);

        assertThat(status(old)).isEqualTo(DeliveryStatus.FAILED);
        assertThat(status(recent)).isEqualTo(DeliveryStatus.PENDING);
        sender.respond((url, d) -> FakeSender.ok());
        assertThat(dispatcher.dispatchDue()).isEqualTo(1);
        assertThat(status(recent)).isEqualTo(DeliveryStatus.SUCCEEDED);
    }

    // --- health and statistics -------------------------------------------------------------

    @Test
    void healthCountsEachEndpointsAttemptsInTheWindowInOneCall() {
        String a = endpoint(ACCOUNT, URL_A, "*");
        clock.advance(Duration.ofMillis(1));
        String b = endpoint(ACCOUNT, URL_B, "*");
        clock.advance(Duration.ofMillis(1));
        String quiet = endpoint(ACCOUNT, URL_C, "refund.created");
        String foreign = endpoint(OTHER_ACCOUNT, URL_A, "*");
        deliverOneEvent(ACCOUNT);
        deliverOneEvent(OTHER_ACCOUNT);
        sender.respond((url, d) -> url.equals(URL_A) ? FakeSender.status(500) : FakeSender.ok());
        Dispatcher dispatcher = dispatcher(RetrySchedule.builder()
                .delays(Duration.ZERO, Duration.ofMinutes(1))
                .jitter(0)
                .build());
        assertThat(dispatcher.dispatchDue()).isEqualTo(3);
        Instant firstRound = clock.instant();
        clock.advance(Duration.ofMinutes(1));
        sender.respond((url, d) -> FakeSender.timeout());
        assertThat(dispatcher.dispatchDue()).as("the retries to A").isEqualTo(2);

        var health = endpoints.health(
                ACCOUNT, List.of(quiet, b, a, foreign), clock.instant().minus(Duration.ofHours(24)));

        assertThat(health.keySet()).containsExactly(quiet, b, a, foreign);
        assertThat(health.get(a)).isEqualTo(new EndpointHealth(2, 0, clock.instant(), Outcome.TIMEOUT));
        assertThat(health.get(b)).isEqualTo(new EndpointHealth(1, 1, firstRound, Outcome.SUCCESS));
        assertThat(health.get(b).successRate()).hasValue(1.0);
        assertThat(health.get(quiet)).isEqualTo(EndpointHealth.NONE);
        assertThat(health.get(quiet).successRate()).isEmpty();
        assertThat(health.get(foreign)).as("another account's endpoint").isEqualTo(EndpointHealth.NONE);
        assertThat(endpoints
                        .health(OTHER_ACCOUNT, List.of(foreign), Instant.EPOCH)
                        .get(foreign))
                .isEqualTo(new EndpointHealth(2, 0, clock.instant(), Outcome.TIMEOUT));
        assertThat(endpoints.health(ACCOUNT, List.of(a), clock.instant()).get(a))
                .as("only attempts started at or after since")
                .isEqualTo(new EndpointHealth(1, 0, clock.instant(), Outcome.TIMEOUT));
        assertThat(endpoints
                        .health(ACCOUNT, List.of(a), clock.instant().plusMillis(1))
                        .get(a))
                .isEqualTo(EndpointHealth.NONE);
        assertThat(endpoints.health(ACCOUNT, List.of(), Instant.EPOCH)).isEmpty();
    }

    @Test
    void attemptsPerHourCountsEveryHourByOutcomeOldestFirst() {
        endpoint(ACCOUNT, URL_A, "*");
        endpoint(OTHER_ACCOUNT, URL_A, "*");
        Instant ten = clock.instant(); // 10:00
        deliverOneEvent(ACCOUNT);
        deliverOneEvent(OTHER_ACCOUNT);
        sender.respond((url, d) -> FakeSender.status(503));
        Dispatcher dispatcher = dispatcher(RetrySchedule.builder()
                .delays(Duration.ZERO, Duration.ofMinutes(90))
                .jitter(0)
                .build());
        assertThat(dispatcher.dispatchDue()).isEqualTo(2);
        clock.advance(Duration.ofMinutes(90)); // 11:30
        sender.respond((url, d) -> FakeSender.ok());
        deliverOneEvent(ACCOUNT);
        assertThat(dispatcher.dispatchDue()).as("two retries and the new one").isEqualTo(3);
        clock.advance(Duration.ofMinutes(29).plusSeconds(59)); // 11:59:59
        sender.respond((url, d) -> FakeSender.timeout());
        deliverOneEvent(ACCOUNT);
        assertThat(dispatcher.dispatchDue()).isEqualTo(1);

        List<AttemptBucket> buckets = endpoints.attemptsPerHour(ACCOUNT, ten.minus(Duration.ofHours(1)), 4);

        assertThat(buckets)
                .extracting(AttemptBucket::start)
                .containsExactly(
                        ten.minus(Duration.ofHours(1)),
                        ten,
                        ten.plus(Duration.ofHours(1)),
                        ten.plus(Duration.ofHours(2)));
        assertThat(buckets)
                .extracting(AttemptBucket::counts)
                .containsExactly(
                        java.util.Map.of(),
                        java.util.Map.of(Outcome.HTTP_ERROR, 1L),
                        java.util.Map.of(Outcome.SUCCESS, 2L, Outcome.TIMEOUT, 1L),
                        java.util.Map.of());
        assertThat(buckets.get(2).total()).isEqualTo(3);
        assertThat(endpoints
                        .attemptsPerHour(ACCOUNT, ten.plus(Duration.ofHours(1)), 1)
                        .getFirst()
                        .total())
                .as("a window that starts later")
                .isEqualTo(3);
        assertThat(endpoints.attemptsPerHour(OTHER_ACCOUNT, ten, 2))
                .extracting(AttemptBucket::total)
                .containsExactly(1L, 1L);
        assertThatThrownBy(() -> endpoints.attemptsPerHour(ACCOUNT, ten.plusSeconds(1), 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("whole hour");
        assertThatThrownBy(() -> endpoints.attemptsPerHour(ACCOUNT, ten, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("hours");
        assertThatThrownBy(() -> endpoints.attemptsPerHour(ACCOUNT, ten, WebhookEndpoints.MAX_STATS_HOURS + 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("hours");
    }

    @Test
    void eventDeliveriesListTheEventsDeliveryToEveryEndpointNewestFirst() {
        String a = endpoint(ACCOUNT, URL_A, "*");
        clock.advance(Duration.ofMillis(1));
        String b = endpoint(ACCOUNT, URL_B, "payment.succeeded");
        endpoint(ACCOUNT, URL_C, "refund.created");
        String eventId = endpoints
                .delivery(ACCOUNT, deliverOneEvent(ACCOUNT))
                .orElseThrow()
                .delivery()
                .eventId();
        clock.advance(Duration.ofMillis(1));
        deliverOneEvent(ACCOUNT);
        List<Delivery> all = endpoints
                .eventDeliveries(ACCOUNT, eventId, PageRequest.first(10))
                .items();

        Page<Delivery> first = endpoints.eventDeliveries(ACCOUNT, eventId, PageRequest.first(1));
        Page<Delivery> rest = endpoints.eventDeliveries(
                ACCOUNT, eventId, new PageRequest(1, first.items().getFirst().id()));

        assertThat(all).extracting(Delivery::endpointId).containsExactlyInAnyOrder(a, b);
        assertThat(all).extracting(Delivery::eventId).containsOnly(eventId);
        assertThat(all.get(0).id()).isGreaterThan(all.get(1).id());
        assertThat(first.items()).containsExactly(all.get(0));
        assertThat(first.hasMore()).isTrue();
        assertThat(rest.items()).containsExactly(all.get(1));
        assertThat(rest.hasMore()).isFalse();
        assertThat(endpoints
                        .eventDeliveries(OTHER_ACCOUNT, eventId, PageRequest.first(10))
                        .items())
                .isEmpty();
        assertThat(endpoints
                        .eventDeliveries(ACCOUNT, "evt_unknown", PageRequest.first(10))
                        .items())
                .isEmpty();
    }

    // --- dispatcher ------------------------------------------------------------------------

    @Test
    void attemptIsSignedOverTheExactBytesWithTheDeliveryIdAndLogged() throws Exception {
        String id = endpoint(ACCOUNT, URL_A, "*");
        WebhookSecret secret = endpoints.secret(ACCOUNT, id).orElseThrow();
        OutboxEvent event = event(ACCOUNT, "payment.succeeded");
        inTransaction(tx -> outbox.appendCounting(tx, event));
        clock.advance(Duration.ofMillis(40));
        Dispatcher dispatcher = dispatcher();

        assertThat(dispatcher.dispatchDue()).isEqualTo(1);

        FakeSender.Sent sent = sender.sent().getFirst();
        Delivery delivery = onlyDelivery(ACCOUNT);
        assertThat(sent.deliveryId()).isEqualTo(delivery.id()).startsWith("msg_");
        assertThat(sent.body()).isEqualTo(event.payload());
        assertThat(sent.headers().get("webhook-timestamp"))
                .isEqualTo(Long.toString(clock.instant().getEpochSecond()));
        verifier(secret).verify(HeaderLookup.of(sent.headers()), sent.body());
        DeliveryDetail detail = endpoints.delivery(ACCOUNT, delivery.id()).orElseThrow();
        assertThat(detail.delivery().status()).isEqualTo(DeliveryStatus.SUCCEEDED);
        assertThat(detail.delivery().nextAttemptAt()).isNull();
        assertThat(detail.attempts()).singleElement().satisfies(a -> {
            assertThat(a.number()).isEqualTo(1);
            assertThat(a.outcome()).isEqualTo(Outcome.SUCCESS);
            assertThat(a.statusCode()).isEqualTo(200);
            assertThat(a.responseSnippet()).isEqualTo("answer 200");
            assertThat(a.startedAt()).isEqualTo(clock.instant());
        });
        assertThat(dispatcher.metrics().attempts(Outcome.SUCCESS)).isEqualTo(1);
        assertThat(dispatcher.metrics().firstAttemptLatency().count()).isEqualTo(1);
        assertThat(dispatcher.metrics().firstAttemptLatency().max()).isEqualTo(Duration.ofMillis(40));
        assertThat(dispatcher.dispatchDue()).as("nothing left").isZero();
    }

    @Test
    void observerIsToldOfEveryStoredAttemptAsTheAttemptLogHoldsIt() {
        String id = endpoint(ACCOUNT, URL_A, "*");
        String delivery = deliverOneEvent(ACCOUNT);
        sender.respond((url, d) -> sender.sent().size() == 1 ? FakeSender.status(500) : FakeSender.ok());
        List<StoredAttempt> told = new java.util.concurrent.CopyOnWriteArrayList<>();
        Dispatcher dispatcher = track(Dispatcher.builder(dataSource, sender)
                .clock(clock)
                .schedule(NO_JITTER)
                .attemptObserver(attempt -> {
                    told.add(attempt);
                    throw new IllegalStateException("an observer that fails changes nothing");
                }));

        assertThat(dispatcher.dispatchDue()).isEqualTo(1);
        clock.advance(RetrySchedule.DEFAULT_DELAYS.get(1));
        assertThat(dispatcher.dispatchDue()).isEqualTo(1);

        DeliveryDetail detail = endpoints.delivery(ACCOUNT, delivery).orElseThrow();
        assertThat(detail.delivery().status()).isEqualTo(DeliveryStatus.SUCCEEDED);
        assertThat(told).extracting(StoredAttempt::attempt).isEqualTo(detail.attempts());
        assertThat(told)
                .extracting(StoredAttempt::deliveryStatus)
                .containsExactly(DeliveryStatus.PENDING, DeliveryStatus.SUCCEEDED);
        assertThat(told).allSatisfy(t -> {
            assertThat(t.accountId()).isEqualTo(ACCOUNT);
            assertThat(t.endpointId()).isEqualTo(id);
            assertThat(t.endpointDisabled()).isFalse();
        });
    }

    @Test
    void failingDeliveryFollowsTheScheduleThenFails() {
        endpoint(ACCOUNT, URL_A, "*");
        String delivery = deliverOneEvent(ACCOUNT);
        sender.respond((url, d) -> FakeSender.status(500));
        Dispatcher dispatcher = dispatcher(NO_JITTER);

        assertThat(dispatcher.dispatchDue()).isEqualTo(1);
        for (Duration delay : RetrySchedule.DEFAULT_DELAYS.subList(1, RetrySchedule.DEFAULT_DELAYS.size())) {
            clock.advance(delay.minusMillis(1));
            assertThat(dispatcher.dispatchDue())
                    .as("not due 1 ms before %s", delay)
                    .isZero();
            clock.advance(Duration.ofMillis(1));
            assertThat(dispatcher.dispatchDue()).as("due after %s", delay).isEqualTo(1);
        }

        DeliveryDetail detail = endpoints.delivery(ACCOUNT, delivery).orElseThrow();
        assertThat(detail.delivery().status()).isEqualTo(DeliveryStatus.FAILED);
        assertThat(detail.delivery().attempts()).isEqualTo(10);
        assertThat(detail.attempts())
                .extracting(DeliveryAttempt::number)
                .containsExactly(1, 2, 3, 4, 5, 6, 7, 8, 9, 10);
        assertThat(sender.sent()).extracting(FakeSender.Sent::deliveryId).containsOnly(delivery);
        assertThat(sender.sent())
                .extracting(s -> s.headers().get("webhook-timestamp"))
                .doesNotHaveDuplicates();
        clock.advance(Duration.ofDays(2));
        assertThat(dispatcher.dispatchDue()).as("given up").isZero();
        assertThat(dispatcher.metrics().deliveriesFailed()).isEqualTo(1);
    }

    @Test
    void endpointFailingForDisableAfterIsDisabledAndTheOthersHearOfIt() {
        String failing = endpoint(ACCOUNT, URL_A, "payment.succeeded");
        String listener = endpoint(ACCOUNT, URL_B, "webhook_endpoint.disabled");
        String delivery = deliverOneEvent(ACCOUNT);
        sender.respond((url, d) -> url.equals(URL_A) ? FakeSender.status(500) : FakeSender.ok());
        Instant firstFailure = clock.instant();
        Dispatcher dispatcher = track(Dispatcher.builder(dataSource, sender)
                .clock(clock)
                .schedule(RetrySchedule.builder()
                        .delays(
                                Duration.ZERO,
                                Duration.ofMinutes(20),
                                Duration.ofMinutes(20),
                                Duration.ofMinutes(20),
                                Duration.ofMinutes(20))
                        .jitter(0)
                        .build())
                .disableAfter(Duration.ofHours(1)));

        dispatcher.dispatchDue();
        for (int i = 0; i < 2; i++) {
            clock.advance(Duration.ofMinutes(20));
            dispatcher.dispatchDue();
        }
        assertThat(endpoints.get(ACCOUNT, failing).orElseThrow().enabled())
                .as("failing for 40 min")
                .isTrue();
        assertThat(endpoints.get(ACCOUNT, failing).orElseThrow().failingSince()).isEqualTo(firstFailure);
        clock.advance(Duration.ofMinutes(20));
        dispatcher.dispatchDue();

        WebhookEndpoint disabled = endpoints.get(ACCOUNT, failing).orElseThrow();
        assertThat(disabled.enabled()).isFalse();
        assertThat(disabled.disabledReason()).isEqualTo(DisabledReason.FAILING);
        assertThat(status(delivery)).isEqualTo(DeliveryStatus.FAILED);
        assertThat(dispatcher.metrics().endpointsDisabled()).isEqualTo(1);
        Delivery notice = deliveriesOf(listener).getFirst();
        assertThat(notice.eventType()).isEqualTo("webhook_endpoint.disabled");
        assertThat(new String(
                        endpoints.delivery(ACCOUNT, notice.id()).orElseThrow().payload(), UTF_8))
                .contains(
                        "\"type\":\"webhook_endpoint.disabled\"",
                        "\"id\":\"" + failing + "\"",
                        "\"disabled_reason\":\"failing\"",
                        "\"failing_since\":\"" + firstFailure + "\"");
        assertThat(dispatcher.dispatchDue()).isEqualTo(1);
        assertThat(sender.sentTo(URL_B)).hasSize(1);
        clock.advance(Duration.ofHours(1));
        assertThat(dispatcher.dispatchDue())
                .as("a disabled endpoint gets nothing")
                .isZero();
    }

    @Test
    void successEndsTheFailingStreak() {
        String id = endpoint(ACCOUNT, URL_A, "*");
        deliverOneEvent(ACCOUNT);
        sender.respond((url, d) -> FakeSender.status(500));
        Dispatcher dispatcher = dispatcher(NO_JITTER);
        dispatcher.dispatchDue();
        assertThat(endpoints.get(ACCOUNT, id).orElseThrow().failingSince()).isNotNull();

        sender.respond((url, d) -> FakeSender.ok());
        clock.advance(Duration.ofSeconds(5));
        dispatcher.dispatchDue();

        assertThat(endpoints.get(ACCOUNT, id).orElseThrow().failingSince()).isNull();
    }

    @Test
    void goneDisablesTheEndpointAtOnce() {
        String id = endpoint(ACCOUNT, URL_A, "*");
        String first = deliverOneEvent(ACCOUNT);
        String second = deliverOneEvent(ACCOUNT);
        sender.respond((url, d) -> FakeSender.status(410));

        assertThat(dispatcher().dispatchDue()).isEqualTo(2);

        WebhookEndpoint endpoint = endpoints.get(ACCOUNT, id).orElseThrow();
        assertThat(endpoint.enabled()).isFalse();
        assertThat(endpoint.disabledReason()).isEqualTo(DisabledReason.GONE);
        assertThat(status(first)).isEqualTo(DeliveryStatus.FAILED);
        assertThat(status(second)).isEqualTo(DeliveryStatus.FAILED);
    }

    @Test
    void retryAfterPostponesTheNextAttemptWithinItsBound() {
        endpoint(ACCOUNT, URL_A, "*");
        String delivery = deliverOneEvent(ACCOUNT);
        sender.respond((url, d) -> FakeSender.status(500, Duration.ofMinutes(3)));
        Dispatcher dispatcher = dispatcher(NO_JITTER);

        dispatcher.dispatchDue();

        assertThat(endpoints
                        .delivery(ACCOUNT, delivery)
                        .orElseThrow()
                        .delivery()
                        .nextAttemptAt())
                .as("3 min instead of the scheduled 5 s")
                .isEqualTo(clock.instant().plus(Duration.ofMinutes(3)));
    }

    @Test
    void overloadedEndpointIsPausedWhileOthersFlow() {
        endpoint(ACCOUNT, URL_A, "payment.succeeded");
        endpoint(OTHER_ACCOUNT, URL_B, "*");
        deliverOneEvent(ACCOUNT);
        sender.respond((url, d) -> FakeSender.status(429, Duration.ofSeconds(60)));
        Dispatcher dispatcher = dispatcher(NO_JITTER);
        dispatcher.dispatchDue();

        sender.respond((url, d) -> FakeSender.ok());
        deliverOneEvent(ACCOUNT);
        deliverOneEvent(OTHER_ACCOUNT);
        clock.advance(Duration.ofSeconds(59));
        assertThat(dispatcher.dispatchDue()).as("only the other endpoint").isEqualTo(1);
        assertThat(sender.sentTo(URL_B)).hasSize(1);

        clock.advance(Duration.ofSeconds(1));
        assertThat(dispatcher.dispatchDue())
                .as("both deliveries of the paused endpoint")
                .isEqualTo(2);
    }

    @Test
    void deadInstancesClaimIsTakenOverWhenItsLeaseRunsOut() throws SQLException {
        endpoint(ACCOUNT, URL_A, "*");
        String delivery = deliverOneEvent(ACCOUNT);
        // an instance claims and dies before its attempt is stored
        long leaseEnd = clock.instant().plus(Dispatcher.DEFAULT_LEASE).toEpochMilli();
        execute("UPDATE deliveries SET status = 'delivering', lease_owner = 'dead', lease_token = 'x', "
                + "lease_expires_at = " + leaseEnd + ", next_attempt_at = " + leaseEnd);
        Dispatcher survivor = dispatcher();

        assertThat(survivor.dispatchDue()).isZero();
        assertThat(survivor.queueDepth()).isEqualTo(new QueueDepth(0, 0, 1));
        clock.advance(Dispatcher.DEFAULT_LEASE.plusMillis(1));
        assertThat(survivor.dispatchDue()).isEqualTo(1);

        assertThat(status(delivery)).isEqualTo(DeliveryStatus.SUCCEEDED);
        assertThat(survivor.queueDepth()).isEqualTo(new QueueDepth(0, 0, 0));
    }

    @Test
    void queueDepthCountsDueAndScheduledDeliveries() {
        endpoint(ACCOUNT, URL_A, "*");
        deliverOneEvent(ACCOUNT);
        Dispatcher dispatcher = dispatcher(NO_JITTER);
        sender.respond((url, d) -> FakeSender.status(500));
        dispatcher.dispatchDue();
        deliverOneEvent(ACCOUNT);
        deliverOneEvent(ACCOUNT);

        assertThat(dispatcher.queueDepth()).isEqualTo(new QueueDepth(2, 1, 0));
    }

    @Test
    void rotationSignsWithBothSecretsDuringTheGracePeriodThenOnlyTheNewOne() throws Exception {
        String id = endpoint(ACCOUNT, URL_A, "*");
        WebhookSecret old = endpoints.secret(ACCOUNT, id).orElseThrow();
        EndpointWithSecret rotated = endpoints.rotateSecret(ACCOUNT, id).orElseThrow();
        WebhookSecret fresh = rotated.secret();
        assertThat(fresh).isNotEqualTo(old);
        assertThat(rotated.endpoint().previousSecretExpiresAt())
                .isEqualTo(clock.instant().plus(Duration.ofHours(24)));
        assertThat(endpoints.secret(ACCOUNT, id)).contains(fresh);
        Dispatcher dispatcher = dispatcher();

        clock.advance(Duration.ofHours(23));
        deliverOneEvent(ACCOUNT);
        dispatcher.dispatchDue();
        FakeSender.Sent during = sender.sent().getLast();
        assertThat(during.headers().get("webhook-signature").split(" ")).hasSize(2);
        verifier(old).verify(HeaderLookup.of(during.headers()), during.body());
        verifier(fresh).verify(HeaderLookup.of(during.headers()), during.body());

        clock.advance(Duration.ofHours(1));
        deliverOneEvent(ACCOUNT);
        dispatcher.dispatchDue();
        FakeSender.Sent after = sender.sent().getLast();
        assertThat(after.headers().get("webhook-signature").split(" ")).hasSize(1);
        verifier(fresh).verify(HeaderLookup.of(after.headers()), after.body());
        assertThatThrownBy(() -> verifier(old).verify(HeaderLookup.of(after.headers()), after.body()))
                .isInstanceOf(WebhookVerificationException.class);
    }

    @Test
    void rotatingTwiceKeepsOnlyTheTwoNewestSecrets() {
        String id = endpoint(ACCOUNT, URL_A, "*");
        WebhookSecret first = endpoints.secret(ACCOUNT, id).orElseThrow();
        WebhookSecret second = endpoints.rotateSecret(ACCOUNT, id).orElseThrow().secret();
        WebhookSecret third = endpoints.rotateSecret(ACCOUNT, id).orElseThrow().secret();
        deliverOneEvent(ACCOUNT);
        dispatcher().dispatchDue();
        FakeSender.Sent sent = sender.sent().getLast();

        assertThat(sent.headers().get("webhook-signature").split(" ")).hasSize(2);
        assertThatThrownBy(() -> verifier(first).verify(HeaderLookup.of(sent.headers()), sent.body()))
                .isInstanceOf(WebhookVerificationException.class);
        assertThat(List.of(second, third)).allSatisfy(s -> {
            try {
                verifier(s).verify(HeaderLookup.of(sent.headers()), sent.body());
            } catch (WebhookVerificationException e) {
                throw new AssertionError(e);
            }
        });
    }

    @Test
    void perEndpointCapLimitsOneClaim() {
        endpoint(ACCOUNT, URL_A, "*");
        for (int i = 0; i < 5; i++) {
            deliverOneEvent(ACCOUNT);
        }
        Dispatcher dispatcher =
                track(Dispatcher.builder(dataSource, sender).clock(clock).maxInFlightPerEndpoint(2));

        assertThat(dispatcher.dispatchDue()).isEqualTo(2);
        assertThat(dispatcher.dispatchDue()).isEqualTo(2);
        assertThat(dispatcher.dispatchDue()).isEqualTo(1);
    }

    // --- rate limit ------------------------------------------------------------------------

    @Test
    void rateLimitIsSetOnCreateChangedAndRemovedByUpdate() {
        String limited = endpoints
                .create(ACCOUNT, new NewEndpoint(URL_A, Set.of("*"), "", 25))
                .endpoint()
                .id();
        clock.advance(Duration.ofMillis(1)); // ids sort by creation time only across milliseconds
        String open = endpoint(ACCOUNT, URL_B, "*");

        assertThat(endpoints.get(ACCOUNT, limited).orElseThrow().rateLimit()).isEqualTo(25);
        assertThat(endpoints.get(ACCOUNT, open).orElseThrow().rateLimit()).isNull();
        assertThat(endpoints
                        .update(
                                ACCOUNT,
                                limited,
                                EndpointUpdate.builder().description("kept").build())
                        .orElseThrow()
                        .rateLimit())
                .as("untouched by other changes")
                .isEqualTo(25);
        assertThat(endpoints
                        .update(
                                ACCOUNT,
                                limited,
                                EndpointUpdate.builder().rateLimit(10_000).build())
                        .orElseThrow()
                        .rateLimit())
                .isEqualTo(10_000);
        assertThat(endpoints
                        .update(
                                ACCOUNT,
                                limited,
                                EndpointUpdate.builder().noRateLimit().build())
                        .orElseThrow()
                        .rateLimit())
                .isNull();
        assertThat(endpoints
                        .update(
                                ACCOUNT,
                                open,
                                EndpointUpdate.builder().rateLimit(1).build())
                        .orElseThrow()
                        .rateLimit())
                .isEqualTo(1);
        assertThat(endpoints.list(ACCOUNT, PageRequest.first(10)).items())
                .extracting(WebhookEndpoint::rateLimit)
                .containsExactly(1, null);
    }

    @Test
    void rateLimitOutsideOneToTenThousandIsRefusedNamingIt() {
        for (int bad : new int[] {0, -1, 10_001, Integer.MIN_VALUE, Integer.MAX_VALUE}) {
            assertThatThrownBy(() -> new NewEndpoint(URL_A, Set.of("*"), "", bad))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("rateLimit")
                    .hasMessageContaining(Integer.toString(bad));
            assertThatThrownBy(() -> EndpointUpdate.builder().rateLimit(bad))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("rateLimit");
        }
        assertThatThrownBy(() -> new EndpointUpdate(null, null, null, null, 5, true))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("removeRateLimit");
    }

    @Test
    void rateLimitedEndpointGetsOneAttemptPerSlotWhileOthersFlowAtOnce() {
        String limited = endpoints
                .create(ACCOUNT, new NewEndpoint(URL_A, Set.of("payment.succeeded"), "", 2))
                .endpoint()
                .id();
        endpoint(OTHER_ACCOUNT, URL_B, "*");
        for (int i = 0; i < 4; i++) {
            deliverOneEvent(ACCOUNT);
            deliverOneEvent(OTHER_ACCOUNT);
        }
        Dispatcher dispatcher =
                track(Dispatcher.builder(dataSource, sender).clock(clock).rateLookahead(Duration.ZERO));

        assertThat(dispatcher.dispatchDue())
                .as("the limited endpoint's first slot and all of the other's")
                .isEqualTo(5);
        assertThat(dispatcher.dispatchDue()).as("the next slot is 500 ms away").isZero();
        clock.advance(Duration.ofMillis(499));
        assertThat(dispatcher.dispatchDue()).isZero();
        clock.advance(Duration.ofMillis(1));
        assertThat(dispatcher.dispatchDue()).isEqualTo(1);
        clock.advance(Duration.ofSeconds(10));
        assertThat(dispatcher.dispatchDue()).as("idle time gives no burst").isEqualTo(1);
        clock.advance(Duration.ofMillis(500));
        assertThat(dispatcher.dispatchDue()).isEqualTo(1);

        assertThat(sender.sentTo(URL_B)).hasSize(4);
        List<Instant> times =
                sender.sentTo(URL_A).stream().map(FakeSender.Sent::at).toList();
        assertThat(times).hasSize(4);
        for (int i = 1; i < times.size(); i++) {
            assertThat(Duration.between(times.get(i - 1), times.get(i))).isGreaterThanOrEqualTo(Duration.ofMillis(500));
        }
        assertThat(deliveriesOf(limited)).extracting(Delivery::status).containsOnly(DeliveryStatus.SUCCEEDED);
    }

    @Test
    void twoDispatchersShareOneEndpointsRateSlots() {
        endpoints.create(ACCOUNT, new NewEndpoint(URL_A, Set.of("*"), "", 1));
        for (int i = 0; i < 3; i++) {
            deliverOneEvent(ACCOUNT);
        }
        Dispatcher a = track(Dispatcher.builder(dataSource, sender)
                .clock(clock)
                .instanceId("a")
                .rateLookahead(Duration.ZERO));
        Dispatcher b = track(Dispatcher.builder(dataSource, sender)
                .clock(clock)
                .instanceId("b")
                .rateLookahead(Duration.ZERO));

        assertThat(a.dispatchDue()).isEqualTo(1);
        assertThat(b.dispatchDue())
                .as("the slot is taken by the other instance")
                .isZero();
        clock.advance(Duration.ofSeconds(1));
        assertThat(b.dispatchDue()).isEqualTo(1);
        assertThat(a.dispatchDue()).isZero();
        clock.advance(Duration.ofMillis(999));
        assertThat(a.dispatchDue()).isZero();
        assertThat(b.dispatchDue()).isZero();
        clock.advance(Duration.ofMillis(1));
        assertThat(a.dispatchDue() + b.dispatchDue()).isEqualTo(1);
        assertThat(sender.sentTo(URL_A)).hasSize(3);
    }

    @Test
    void rateLimitedBacklogNeverTakesTheClaimFromOtherEndpoints() {
        endpoints.create(ACCOUNT, new NewEndpoint(URL_A, Set.of("payment.succeeded"), "", 1));
        endpoint(OTHER_ACCOUNT, URL_B, "*");
        for (int i = 0; i < 30; i++) {
            deliverOneEvent(ACCOUNT);
        }
        clock.advance(Duration.ofMillis(1));
        deliverOneEvent(OTHER_ACCOUNT);
        Dispatcher dispatcher = track(
                Dispatcher.builder(dataSource, sender).clock(clock).batchSize(2).rateLookahead(Duration.ZERO));

        assertThat(dispatcher.dispatchDue())
                .as("one slot of the older backlog, then the other endpoint")
                .isEqualTo(2);
        assertThat(sender.sentTo(URL_B)).hasSize(1);
    }

    @Test
    void removingTheRateLimitLetsTheBacklogFlow() {
        String id = endpoints
                .create(ACCOUNT, new NewEndpoint(URL_A, Set.of("*"), "", 1))
                .endpoint()
                .id();
        for (int i = 0; i < 5; i++) {
            deliverOneEvent(ACCOUNT);
        }
        Dispatcher dispatcher =
                track(Dispatcher.builder(dataSource, sender).clock(clock).rateLookahead(Duration.ZERO));
        assertThat(dispatcher.dispatchDue()).isEqualTo(1);

        endpoints.update(ACCOUNT, id, EndpointUpdate.builder().noRateLimit().build());

        assertThat(dispatcher.dispatchDue()).isEqualTo(4);
    }

    @Test
    void lookaheadMustBeShorterThanTheLease() {
        assertThatThrownBy(() -> Dispatcher.builder(dataSource, sender)
                        .lease(Duration.ofSeconds(2))
                        .rateLookahead(Duration.ofSeconds(2))
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("rateLookahead");
        assertThatThrownBy(() -> Dispatcher.builder(dataSource, sender).rateLookahead(Duration.ofSeconds(11)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("rateLookahead");
    }

    // --- helpers ---------------------------------------------------------------------------

    Dispatcher dispatcher() {
        return dispatcher(RetrySchedule.defaults());
    }

    Dispatcher dispatcher(RetrySchedule schedule) {
        return track(Dispatcher.builder(dataSource, sender)
                .clock(clock)
                .schedule(schedule)
                .random(new Random(7)));
    }

    Dispatcher track(Dispatcher.Builder builder) {
        Dispatcher d = builder.build();
        dispatchers.add(d);
        return d;
    }

    WebhookVerifier verifier(WebhookSecret secret) {
        return WebhookVerifier.builder().secret(secret).clock(clock).build();
    }

    String endpoint(String account, URI url, String... types) {
        return endpoints
                .create(account, new NewEndpoint(url, Set.of(types), "test endpoint"))
                .endpoint()
                .id();
    }

    static OutboxEvent event(String account, String type) {
        String id = "evt_" + UUID.randomUUID().toString().replace("-", "");
        return new OutboxEvent(
                id,
                account,
                type,
                Instant.parse("2026-03-01T10:00:00Z"),
                ("{\"id\":\"" + id + "\",\"type\":\"" + type + "\",\"data\":{\"amount\":500}}").getBytes(UTF_8));
    }

    /** Appends a payment.succeeded event now; returns the id of its one delivery. */
    String deliverOneEvent(String account) {
        OutboxEvent e = event(account, "payment.succeeded");
        OutboxEvent now = new OutboxEvent(e.id(), e.accountId(), e.type(), clock.instant(), e.payload());
        inTransaction(tx -> outbox.appendCounting(tx, now));
        return inTransaction(tx -> {
            try (PreparedStatement s = tx.prepareStatement("SELECT id FROM deliveries WHERE event_id = ?")) {
                s.setString(1, now.id());
                try (ResultSet r = s.executeQuery()) {
                    return r.next() ? r.getString(1) : "none";
                }
            }
        });
    }

    List<Delivery> deliveriesOf(String endpointId) {
        String account = endpoints.get(ACCOUNT, endpointId).isPresent() ? ACCOUNT : OTHER_ACCOUNT;
        return endpoints
                .deliveries(account, endpointId, PageRequest.first(100))
                .orElseThrow()
                .items();
    }

    Delivery onlyDelivery(String account) {
        List<WebhookEndpoint> all =
                endpoints.list(account, PageRequest.first(100)).items();
        return all.stream()
                .flatMap(e -> deliveriesOf(e.id()).stream())
                .reduce((a, b) -> {
                    throw new AssertionError("more than one delivery");
                })
                .orElseThrow();
    }

    DeliveryStatus status(String deliveryId) {
        return endpoints.delivery(ACCOUNT, deliveryId).orElseThrow().delivery().status();
    }

    @FunctionalInterface
    interface TxWork<T> {
        T run(Connection tx) throws SQLException;
    }

    <T> T inTransaction(TxWork<T> work) {
        try (Connection tx = dataSource.getConnection()) {
            tx.setAutoCommit(false);
            T result = work.run(tx);
            tx.commit();
            tx.setAutoCommit(true);
            return result;
        } catch (SQLException e) {
            throw new AssertionError(e);
        }
    }

    static void insertPayment(Connection tx, String id) throws SQLException {
        try (PreparedStatement s = tx.prepareStatement("INSERT INTO payments (id) VALUES (?)")) {
            s.setString(1, id);
            s.executeUpdate();
        }
    }

    long count(String table) throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            return count(c, table);
        }
    }

    static long count(Connection c, String table) throws SQLException {
        try (Statement s = c.createStatement();
                ResultSet r = s.executeQuery("SELECT COUNT(*) FROM " + table)) {
            r.next();
            return r.getLong(1);
        }
    }

    void execute(String sql) throws SQLException {
        try (Connection c = dataSource.getConnection();
                Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }
}
