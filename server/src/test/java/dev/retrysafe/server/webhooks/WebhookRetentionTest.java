package dev.retrysafe.server.webhooks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.retrysafe.server.Api;
import dev.retrysafe.server.LoopbackReceiver;
import dev.retrysafe.server.TestServer;
import dev.retrysafe.testkit.FakeClock;
import dev.retrysafe.testkit.PostgresTestDatabase;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.logging.Logger;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * {@code webhooks.retention} on PostgreSQL and on the embedded H2, with an injected clock: the purge takes exactly what
 * was created before {@code now - retention} (an event with its finished delivery and attempt),
 * keeps an old event whose delivery is still pending, and {@code GET} of a purged one is
 * {@code 404}.
 */
class WebhookRetentionTest {

    private static final Duration RETENTION = Duration.ofDays(30);
    private static final Duration WAIT = Duration.ofSeconds(20);

    /** Opens a connection to the server's database. */
    @FunctionalInterface
    interface Connector {
        Connection connect() throws SQLException;
    }

    @Test
    void onPostgresThePurgeRemovesExactlyTheOlderEventsDeliveriesAndAttemptsAndTheirGetIs404() throws Exception {
        try (PostgresTestDatabase database = PostgresTestDatabase.create();
                LoopbackReceiver receiver = LoopbackReceiver.start();
                TestServer server = TestServer.postgres(database)
                        .loopbackWebhooks(List.of(Duration.ZERO))
                        .start()) {
            purgeRemovesExactlyWhatIsOlder(server, receiver, database::connect);
        }
    }

    @Test
    void onEmbeddedH2ThePurgeRemovesExactlyTheOlderEventsDeliveriesAndAttemptsAndTheirGetIs404() throws Exception {
        try (LoopbackReceiver receiver = LoopbackReceiver.start();
                TestServer server =
                        TestServer.h2().loopbackWebhooks(List.of(Duration.ZERO)).start()) {
            var db = server.config().database();
            String url = db.jdbcUrl(server.config().dataDir());
            purgeRemovesExactlyWhatIsOlder(
                    server, receiver, () -> DriverManager.getConnection(url, db.user(), db.password()));
        }
    }

    private static void purgeRemovesExactlyWhatIsOlder(TestServer server, LoopbackReceiver receiver, Connector database)
            throws Exception {
        {
            Api api = Api.of(server);
            assertThat(api.post(
                                    "/v1/webhook_endpoints",
                                    "{\"url\": \"" + receiver.url("hooks") + "\", \"event_types\": [\"payment.*\"]}")
                            .status())
                    .isEqualTo(201);
            // two payments, two events with one delivery each; both delivered
            assertThat(api.post("/v1/payments", "{\"amount\": 5, \"currency\": \"eur\"}")
                            .status())
                    .isIn(200, 201);
            assertThat(api.post("/v1/payments", "{\"amount\": 6, \"currency\": \"eur\"}")
                            .status())
                    .isIn(200, 201);
            await().atMost(WAIT).until(() -> receiver.received().size() >= 2 && finished(database) == 2);
            List<String> events = column(database, "SELECT id FROM events ORDER BY id");
            assertThat(events).hasSize(2);
            String kept = events.get(0);
            String purged = events.get(1);
            String keptDelivery = first(database, "SELECT id FROM deliveries WHERE event_id = '" + kept + "'");
            String purgedDelivery = first(database, "SELECT id FROM deliveries WHERE event_id = '" + purged + "'");
            // the first event's delivery is pending again (due in a year): it must stay, and its event too
            execute(
                    database,
                    "UPDATE deliveries SET status = 'pending', next_attempt_at = 99999999999999" + " WHERE id = '"
                            + keptDelivery + "'");
            Instant eventCreated = createdAt(database, purged); // microseconds
            Instant deliveryCreated = Instant.ofEpochMilli(Long.parseLong(
                    first(database, "SELECT created_at FROM deliveries WHERE id = '" + purgedDelivery + "'")));
            // every attempt as if made when the second delivery was created: when an attempt really
            // started depends on the dispatcher's timing, and this test is about the cutoff only
            execute(database, "UPDATE delivery_attempts SET started_at = " + deliveryCreated.toEpochMilli());
            FakeClock clock = new FakeClock(deliveryCreated.plus(RETENTION));
            RetentionTask retention = new RetentionTask(dataSource(database), RETENTION, clock);
            try {
                // with the cutoff exactly at the delivery's creation, neither it nor its event is older
                RetentionTask.Purged none = retention.purge();
                assertThat(none.deliveries()).isZero();
                assertThat(none.events()).isZero();
                assertThat(column(database, "SELECT id FROM deliveries")).contains(purgedDelivery);
                assertThat(column(database, "SELECT id FROM events")).contains(purged);

                // a millisecond after the event's creation, the event, its delivery and its attempt are
                clock.set(eventCreated.plus(RETENTION).plusMillis(1));
                RetentionTask.Purged done = retention.purge();

                assertThat(done.deliveries()).isEqualTo(1);
                assertThat(done.events()).isEqualTo(1);
                assertThat(column(database, "SELECT id FROM events")).containsExactly(kept);
                assertThat(column(database, "SELECT id FROM deliveries")).containsExactly(keptDelivery);
                assertThat(column(database, "SELECT delivery_id FROM delivery_attempts"))
                        .as("the old attempt of the kept delivery goes, as any attempt older than the cutoff")
                        .isEmpty();
                assertThat(api.get("/v1/events/" + purged).status()).isEqualTo(404);
                assertThat(api.get("/v1/deliveries/" + purgedDelivery).status()).isEqualTo(404);
                assertThat(api.get("/v1/events/" + kept).status()).isEqualTo(200);
                assertThat(api.get("/v1/deliveries/" + keptDelivery).status()).isEqualTo(200);
            } finally {
                retention.close();
            }
        }
    }

    private static int finished(Connector database) throws SQLException {
        return column(database, "SELECT id FROM deliveries WHERE status = 'succeeded'")
                .size();
    }

    private static Instant createdAt(Connector database, String event) throws SQLException {
        try (Connection c = database.connect();
                PreparedStatement s = c.prepareStatement("SELECT created_at FROM events WHERE id = ?")) {
            s.setString(1, event);
            try (ResultSet r = s.executeQuery()) {
                assertThat(r.next()).isTrue();
                return r.getObject(1, OffsetDateTime.class).toInstant();
            }
        }
    }

    private static String first(Connector database, String sql) throws SQLException {
        return column(database, sql).getFirst();
    }

    private static List<String> column(Connector database, String sql) throws SQLException {
        List<String> out = new java.util.ArrayList<>();
        try (Connection c = database.connect();
                var s = c.createStatement();
                ResultSet r = s.executeQuery(sql)) {
            while (r.next()) {
                out.add(r.getString(1));
            }
        }
        return out;
    }

    private static void execute(Connector database, String sql) throws SQLException {
        try (Connection c = database.connect();
                var s = c.createStatement()) {
            s.execute(sql);
        }
    }

    /** A data source opening a new connection to the test database each time. */
    private static DataSource dataSource(Connector database) {
        return new DataSource() {
            @Override
            public Connection getConnection() throws SQLException {
                return database.connect();
            }

            @Override
            public Connection getConnection(String user, String password) throws SQLException {
                return database.connect();
            }

            @Override
            public PrintWriter getLogWriter() {
                return null;
            }

            @Override
            public void setLogWriter(PrintWriter out) {}

            @Override
            public void setLoginTimeout(int seconds) {}

            @Override
            public int getLoginTimeout() {
                return 0;
            }

            @Override
            public Logger getParentLogger() {
                return Logger.getGlobal();
            }

            @Override
            public <T> T unwrap(Class<T> iface) throws SQLException {
                throw new SQLException("not a wrapper");
            }

            @Override
            public boolean isWrapperFor(Class<?> iface) {
                return false;
            }
        };
    }
}
