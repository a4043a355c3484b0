package dev.retrysafe.delivery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.retrysafe.testkit.FakeClock;
import dev.retrysafe.testkit.PooledDataSource;
import dev.retrysafe.testkit.ThrowawayDatabase;
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
import java.util.Set;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The retention purge with an injected clock, on H2 and PostgreSQL: it removes exactly the
 * attempts started and the finished deliveries created before {@code now - retention}, never an
 * unfinished delivery (held ones included), and moves past unfinished ones however many there
 * are; then the ordering keys no delivery uses any more, and no other.
 */
class DeliveryRetentionTest {

    private static final String ACCOUNT = "acct_1";
    private static final Duration RETENTION = Duration.ofDays(30);
    private static final Instant NOW = Instant.parse("2026-03-01T10:00:00Z");
    private static final long CUTOFF = NOW.minus(RETENTION).toEpochMilli();

    static Stream<Arguments> databases() {
        return Stream.of(
                Arguments.of("H2", (Supplier<ThrowawayDatabase>) () -> ThrowawayDatabase.h2("retention")),
                Arguments.of("PostgreSQL", (Supplier<ThrowawayDatabase>) ThrowawayDatabase::postgres));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("databases")
    void purgeRemovesExactlyWhatIsOlderThanTheRetention(String name, Supplier<ThrowawayDatabase> databases)
            throws Exception {
        try (ThrowawayDatabase database = databases.get();
                PooledDataSource pool = new PooledDataSource(database.dataSource(), 4)) {
            FakeClock clock = new FakeClock(NOW);
            WebhookEndpoints endpoints =
                    WebhookEndpoints.builder(pool).clock(clock).build();
            String endpoint;
            try (Connection c = pool.getConnection();
                    Statement s = c.createStatement()) {
                s.execute(DeliverySchema.schemaSql());
            }
            endpoint = endpoints
                    .create(ACCOUNT, new NewEndpoint(URI.create("https://a.example.com/"), Set.of("*"), ""))
                    .endpoint()
                    .id();
            try (Connection c = pool.getConnection()) {
                // given finished deliveries 1 ms before the cutoff, at it, and after it
                delivery(c, endpoint, "msg_old", CUTOFF - 1, null);
                attempt(c, "att_old", "msg_old", CUTOFF - 1);
                delivery(c, endpoint, "msg_at_cutoff", CUTOFF, null);
                attempt(c, "att_at_cutoff", "msg_at_cutoff", CUTOFF);
                delivery(c, endpoint, "msg_new", NOW.toEpochMilli() - 1, null);
                attempt(c, "att_new", "msg_new", NOW.toEpochMilli() - 1);
                // a long-finished delivery whose attempt is recent (replayed) goes with its attempt
                delivery(c, endpoint, "msg_old_replayed", CUTOFF - 10 * 86_400_000L, null);
                attempt(c, "att_recent_of_old", "msg_old_replayed", CUTOFF + 3_600_000L);
                // unfinished old deliveries (more than a batch of them) stay; their old attempts go
                for (int i = 0; i < 5; i++) {
                    delivery(c, endpoint, "msg_old_pending_" + i, CUTOFF - 100 + i, NOW.toEpochMilli());
                }
                attempt(c, "att_old_of_pending", "msg_old_pending_0", CUTOFF - 50);
                // and behind them, older than the cutoff too, one more finished delivery
                delivery(c, endpoint, "msg_old_behind_pending", CUTOFF - 2, null);
            }
            DeliveryRetention retention = DeliveryRetention.builder(pool)
                    .clock(clock)
                    .retention(RETENTION)
                    .batchSize(2)
                    .build();

            // when
            DeliveryRetention.Purged purged = retention.purge();

            // then
            assertThat(ids(pool, "SELECT id FROM deliveries ORDER BY id"))
                    .containsExactly(
                            "msg_at_cutoff",
                            "msg_new",
                            "msg_old_pending_0",
                            "msg_old_pending_1",
                            "msg_old_pending_2",
                            "msg_old_pending_3",
                            "msg_old_pending_4");
            assertThat(ids(pool, "SELECT id FROM delivery_attempts ORDER BY id"))
                    .containsExactly("att_at_cutoff", "att_new");
            assertThat(purged.deliveries()).isEqualTo(3);
            assertThat(purged.attempts()).isEqualTo(2);
            assertThat(endpoints.delivery(ACCOUNT, "msg_old"))
                    .as("GET of a purged delivery")
                    .isEmpty();
            assertThat(endpoints.delivery(ACCOUNT, "msg_at_cutoff")).isPresent();

            // a purge again removes nothing; a millisecond later the one at the cutoff is older
            assertThat(retention.purge()).isEqualTo(new DeliveryRetention.Purged(0, 0, 0));
            clock.advance(Duration.ofMillis(1));
            assertThat(retention.purge()).isEqualTo(new DeliveryRetention.Purged(1, 1, 0));
            assertThat(ids(pool, "SELECT id FROM deliveries WHERE id = 'msg_at_cutoff'"))
                    .isEmpty();
            assertThat(pool.borrowed()).isZero();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("databases")
    void purgeForgetsTheKeysNoDeliveryUsesAndKeepsTheRestNumbered(String name, Supplier<ThrowawayDatabase> databases)
            throws Exception {
        try (ThrowawayDatabase database = databases.get();
                PooledDataSource pool = new PooledDataSource(database.dataSource(), 4)) {
            FakeClock clock = new FakeClock(NOW);
            try (Connection c = pool.getConnection();
                    Statement s = c.createStatement()) {
                s.execute(DeliverySchema.schemaSql());
            }
            WebhookEndpoints endpoints =
                    WebhookEndpoints.builder(pool).clock(clock).build();
            String endpoint = endpoints
                    .create(ACCOUNT, new NewEndpoint(URI.create("https://a.example.com/"), Set.of("*"), "", null, true))
                    .endpoint()
                    .id();
            long old = CUTOFF - 86_400_000L;
            try (Connection c = pool.getConnection()) {
                // given a key whose deliveries are all old and finished: they go, and so does the key
                key(c, endpoint, "pay_gone", 2);
                orderedDelivery(c, endpoint, "msg_gone_1", old, "succeeded", null, "pay_gone", 1);
                orderedDelivery(c, endpoint, "msg_gone_2", old + 1, "failed", null, "pay_gone", 2);
                // a key with one old finished delivery and one recent: the recent one keeps the key
                key(c, endpoint, "pay_kept", 7);
                orderedDelivery(c, endpoint, "msg_kept_old", old, "succeeded", null, "pay_kept", 6);
                orderedDelivery(c, endpoint, "msg_kept_new", NOW.toEpochMilli() - 1, "succeeded", null, "pay_kept", 7);
                // a key whose old deliveries wait, the head retrying and the next held: both stay
                key(c, endpoint, "pay_held", 4);
                orderedDelivery(c, endpoint, "msg_held_head", old, "pending", NOW.toEpochMilli(), "pay_held", 3);
                orderedDelivery(c, endpoint, "msg_held_next", old + 1, "pending", null, "pay_held", 4);
                // keys with no delivery at all (more than a batch of them): they go
                for (int i = 0; i < 3; i++) {
                    key(c, endpoint, "pay_unused_" + i, 1);
                }
            }
            DeliveryRetention retention = DeliveryRetention.builder(pool)
                    .clock(clock)
                    .retention(RETENTION)
                    .batchSize(2)
                    .build();

            // when
            DeliveryRetention.Purged purged = retention.purge();

            // then
            assertThat(ids(pool, "SELECT ordering_key || ':' || last_seq FROM delivery_ordering_keys ORDER BY 1"))
                    .containsExactly("pay_held:4", "pay_kept:7");
            assertThat(ids(pool, "SELECT id FROM deliveries ORDER BY id"))
                    .as("a held delivery is not finished, however old")
                    .containsExactly("msg_held_head", "msg_held_next", "msg_kept_new");
            assertThat(purged).isEqualTo(new DeliveryRetention.Purged(0, 3, 4));
            assertThat(retention.purge()).isEqualTo(new DeliveryRetention.Purged(0, 0, 0));

            // and a later event of a forgotten key starts it again as its head; the kept keys go on
            Outbox outbox = Outbox.create();
            try (Connection tx = pool.getConnection()) {
                tx.setAutoCommit(false);
                for (String key : List.of("pay_gone", "pay_kept", "pay_held")) {
                    outbox.append(
                            tx,
                            new OutboxEvent("evt_later_" + key, ACCOUNT, "payment.updated", NOW, new byte[] {'{', '}'})
                                    .withOrderingKey(key));
                }
                tx.commit();
                tx.setAutoCommit(true);
            }
            assertThat(ids(
                            pool,
                            "SELECT ordering_key || ':' || ordering_seq || ':'"
                                    + " || CASE WHEN next_attempt_at IS NULL THEN 'held' ELSE 'due' END"
                                    + " FROM deliveries WHERE event_id LIKE 'evt_later_%' ORDER BY 1"))
                    .containsExactly("pay_gone:1:due", "pay_held:5:held", "pay_kept:8:due");
            assertThat(pool.borrowed()).isZero();
        }
    }

    @Test
    void retentionAndBatchSizeAreChecked() {
        DeliveryRetention.Builder b = DeliveryRetention.builder(new org.h2.jdbcx.JdbcDataSource());
        assertThatThrownBy(() -> b.retention(Duration.ofMinutes(59))).hasMessageContaining("retention must be");
        assertThatThrownBy(() -> b.batchSize(0)).hasMessageContaining("batchSize must be");
        assertThat(b.build().retention()).isEqualTo(DeliveryRetention.DEFAULT_RETENTION);
    }

    static void delivery(Connection c, String endpoint, String id, long createdAt, @Nullable Long nextAttemptAt)
            throws SQLException {
        try (PreparedStatement s = c.prepareStatement("INSERT INTO deliveries (id, endpoint_id, account_id, event_id,"
                + " event_type, payload, status, attempts, next_attempt_at, created_at) VALUES (?, ?, ?, ?,"
                + " 'payment.succeeded', ?, ?, 1, ?, ?)")) {
            s.setString(1, id);
            s.setString(2, endpoint);
            s.setString(3, ACCOUNT);
            s.setString(4, "evt_" + id);
            s.setBytes(5, new byte[] {'{', '}'});
            s.setString(6, nextAttemptAt == null ? "succeeded" : "pending");
            s.setObject(7, nextAttemptAt);
            s.setLong(8, createdAt);
            s.executeUpdate();
        }
    }

    static void orderedDelivery(
            Connection c,
            String endpoint,
            String id,
            long createdAt,
            String status,
            @Nullable Long nextAttemptAt,
            String key,
            long seq)
            throws SQLException {
        try (PreparedStatement s = c.prepareStatement("INSERT INTO deliveries (id, endpoint_id, account_id, event_id,"
                + " event_type, payload, status, attempts, next_attempt_at, created_at, ordering_key, ordering_seq)"
                + " VALUES (?, ?, ?, ?, 'payment.updated', ?, ?, 1, ?, ?, ?, ?)")) {
            s.setString(1, id);
            s.setString(2, endpoint);
            s.setString(3, ACCOUNT);
            s.setString(4, "evt_" + id);
            s.setBytes(5, new byte[] {'{', '}'});
            s.setString(6, status);
            s.setObject(7, nextAttemptAt);
            s.setLong(8, createdAt);
            s.setString(9, key);
            s.setLong(10, seq);
            s.executeUpdate();
        }
    }

    static void key(Connection c, String endpoint, String key, long lastSeq) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(
                "INSERT INTO delivery_ordering_keys (endpoint_id, ordering_key, last_seq) VALUES (?, ?, ?)")) {
            s.setString(1, endpoint);
            s.setString(2, key);
            s.setLong(3, lastSeq);
            s.executeUpdate();
        }
    }

    static void attempt(Connection c, String id, String delivery, long startedAt) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("INSERT INTO delivery_attempts (id, delivery_id, attempt_number,"
                + " started_at, outcome, status_code, latency_ms, response_snippet, error_detail)"
                + " VALUES (?, ?, 1, ?, 'SUCCESS', 200, 3, '', '')")) {
            s.setString(1, id);
            s.setString(2, delivery);
            s.setLong(3, startedAt);
            s.executeUpdate();
        }
    }

    static List<String> ids(PooledDataSource pool, String sql) throws SQLException {
        List<String> out = new ArrayList<>();
        try (Connection c = pool.getConnection();
                Statement s = c.createStatement();
                ResultSet r = s.executeQuery(sql)) {
            while (r.next()) {
                out.add(r.getString(1));
            }
        }
        return out;
    }
}
