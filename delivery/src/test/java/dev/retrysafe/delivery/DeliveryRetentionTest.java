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
 * unfinished delivery, and moves past unfinished ones however many there are.
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
            assertThat(retention.purge()).isEqualTo(new DeliveryRetention.Purged(0, 0));
            clock.advance(Duration.ofMillis(1));
            assertThat(retention.purge()).isEqualTo(new DeliveryRetention.Purged(1, 1));
            assertThat(ids(pool, "SELECT id FROM deliveries WHERE id = 'msg_at_cutoff'"))
                    .isEmpty();
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
