package dev.retrysafe.delivery.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.retrysafe.delivery.AttemptResult;
import dev.retrysafe.delivery.DeliverySchema;
import dev.retrysafe.delivery.RetrySchedule;
import dev.retrysafe.testkit.ThrowawayDatabase;
import java.net.URI;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HashSet;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * The claim in one statement on PostgreSQL ({@link DispatchSql#CLAIM_BY_ENDPOINT_PLANNED}) takes exactly
 * what the scan in due order ({@link DueScan}) chooses, on random outboxes (endpoints at, below and
 * over their cap, disabled, paused and slowed-down ones, expired leases, future and finished
 * deliveries), and reads a bounded number of index entries whatever the backlog behind endpoints at
 * their cap.
 */
class ClaimByEndpointOnPostgresTest {

    private static final int CAP = 4;
    private static final long NOW = 1_000_000_000L;
    private static final String OWNER = "test-instance";

    @Test
    void takesWhatTheScanInDueOrderChoosesOnRandomOutboxes() throws Exception {
        try (ThrowawayDatabase database = ThrowawayDatabase.postgres()) {
            DataSource dataSource = database.dataSource();
            schema(dataSource);
            DueScan scan = new DueScan(config(dataSource));
            int compared = 0;
            for (long seed = 1; seed <= 25; seed++) {
                Random random = new Random(seed);
                fill(dataSource, random);
                for (int limit : new int[] {1, 3, 7, 20, 100}) {
                    Set<String> chosen;
                    try (Connection c = dataSource.getConnection()) {
                        chosen = new HashSet<>(
                                scan.choose(c, Instant.ofEpochMilli(NOW), limit).ids());
                    }
                    Claim claim = claimByEndpointAndRollBack(dataSource, limit);
                    assertThat(claim.ids()).as("seed %d, limit %d", seed, limit).isEqualTo(chosen);
                    assertThat(claim.ids()).hasSizeLessThanOrEqualTo(limit);
                    if (claim.ids().size() == limit && dueCount(dataSource) > limit) {
                        assertThat(claim.heldBack())
                                .as("more due than taken: seed %d, limit %d", seed, limit)
                                .isTrue();
                    }
                    compared += chosen.size();
                }
            }
            assertThat(compared).as("the outboxes had due deliveries to choose").isGreaterThan(500);
        }
    }

    @Test
    void readsABoundedNumberOfIndexEntriesWhateverTheBacklogOfEndpointsAtTheirCap() throws Exception {
        try (ThrowawayDatabase database = ThrowawayDatabase.postgres()) {
            DataSource dataSource = database.dataSource();
            schema(dataSource);
            try (Connection c = dataSource.getConnection();
                    Statement s = c.createStatement()) {
                for (int e = 0; e < 16; e++) {
                    endpoint(c, "we_" + e, true, null, null);
                }
                // 100,000 due deliveries, the oldest 90% of them of the eight endpoints at their cap
                s.execute("""
                        INSERT INTO deliveries (id, endpoint_id, account_id, event_id, event_type, payload, status,
                            attempts, next_attempt_at, created_at)
                        SELECT 'd_' || lpad(g::text, 7, '0'),
                               'we_' || CASE WHEN g <= 90000 THEN g % 8 ELSE 8 + g % 8 END,
                               'acct', 'evt_' || g, 'payment.succeeded', '\\x7b7d', 'pending', 0, g, g
                        FROM generate_series(1, 100000) g""");
                s.execute("""
                        UPDATE deliveries SET status = 'delivering', lease_owner = 'other', lease_token = 'held',
                            lease_expires_at = %d, next_attempt_at = %d
                        WHERE id IN (SELECT id FROM deliveries WHERE endpoint_id IN
                            ('we_0', 'we_1', 'we_2', 'we_3', 'we_4', 'we_5', 'we_6', 'we_7') AND next_attempt_at <= %d)""".formatted(NOW + 60_000, NOW + 60_000, 8 * CAP));
                s.execute("ANALYZE deliveries");
                s.execute("ANALYZE webhook_endpoints");
            }
            long before = indexEntriesRead(dataSource);
            Claim claim = claimByEndpointAndRollBack(dataSource, 20);
            long read = indexEntriesRead(dataSource) - before;
            assertThat(claim.ids())
                    .hasSize(20)
                    .allSatisfy(
                            id -> assertThat(Integer.parseInt(id.substring(2))).isGreaterThan(90000));
            // the free endpoints' 8 x CAP due deliveries and the live claims; the scan in due order
            // stepped over 90,000 rows of the endpoints at their cap
            assertThat(read).as("index entries read by one claim").isLessThan(500);
        }
    }

    @Test
    void aClaimGoesByEndpointOnPostgresWithoutRateLimitsOnly() throws Exception {
        try (ThrowawayDatabase database = ThrowawayDatabase.postgres();
                ThrowawayDatabase h2 = ThrowawayDatabase.h2("claimroute")) {
            schema(database.dataSource());
            schema(h2.dataSource());
            try (Connection c = database.dataSource().getConnection()) {
                endpoint(c, "we_plain", true, null, null);
                assertThat(new ClaimRoute().byEndpoint(c)).isTrue();
                endpoint(c, "we_paced", true, null, null);
                try (Statement s = c.createStatement()) {
                    s.execute("UPDATE webhook_endpoints SET rate_limit = 5 WHERE id = 'we_paced'");
                }
                assertThat(new ClaimRoute().byEndpoint(c))
                        .as("a rate limit to pace")
                        .isFalse();
            }
            try (Connection c = h2.dataSource().getConnection()) {
                assertThat(new ClaimRoute().byEndpoint(c)).as("H2").isFalse();
            }
        }
    }

    @Test
    void theClaimLeavesThePooledConnectionsPlannerSettingsAsTheyCameWhetherItSucceedsOrFails() throws Exception {
        try (ThrowawayDatabase database = ThrowawayDatabase.postgres()) {
            DataSource dataSource = database.dataSource();
            schema(dataSource);
            try (Connection c = dataSource.getConnection()) {
                endpoint(c, "we_0", true, null, null);
                assertThat(settings(c)).isEqualTo("auto on");
                for (int limit : new int[] {5, -1}) { // -1: the statement fails (a negative LIMIT)
                    try (PreparedStatement s = c.prepareStatement(DispatchSql.CLAIM_BY_ENDPOINT_PLANNED)) {
                        bind(s, limit);
                        try {
                            for (boolean rows = s.execute();
                                    rows || s.getUpdateCount() != -1;
                                    rows = s.getMoreResults()) {
                                // read through every result
                            }
                            assertThat(limit).isPositive();
                        } catch (SQLException e) {
                            assertThat(limit)
                                    .as("only the negative limit fails: %s", e)
                                    .isNegative();
                        }
                    }
                    assertThat(c.getAutoCommit()).isTrue();
                    assertThat(settings(c))
                            .as("after a claim with limit %d", limit)
                            .isEqualTo("auto on");
                }
            }
        }
    }

    private static String settings(Connection c) throws SQLException {
        try (Statement s = c.createStatement();
                ResultSet r = s.executeQuery(
                        "SELECT current_setting('plan_cache_mode') || ' ' || current_setting('enable_incremental_sort')")) {
            r.next();
            return r.getString(1);
        }
    }

    private record Claim(Set<String> ids, boolean heldBack) {}

    /** Binds the claim's params as the dispatcher does, for a claim of at most {@code limit}. */
    private static void bind(PreparedStatement s, int limit) throws SQLException {
        DispatchSql.bindClaimByEndpoint(s, NOW, CAP, limit, OWNER, "token", NOW + 30_000);
    }

    /** Runs the statement in a transaction that is rolled back, so the outbox stays as it was. */
    private static Claim claimByEndpointAndRollBack(DataSource dataSource, int limit) throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            try (Statement flush = c.createStatement()) {
                flush.execute("SELECT pg_stat_force_next_flush()"); // this backend's reads, at its transaction's end
            }
            try (PreparedStatement s = c.prepareStatement(DispatchSql.CLAIM_BY_ENDPOINT_PLANNED)) {
                bind(s, limit);
                Set<String> ids = new HashSet<>();
                boolean heldBack = false;
                s.execute(); // the settings
                assertThat(s.getMoreResults()).as("the claim's rows").isTrue();
                try (ResultSet r = s.getResultSet()) {
                    while (r.next()) {
                        heldBack = r.getBoolean("held_back");
                        if (r.getString("id") != null) {
                            ids.add(r.getString("id"));
                        }
                    }
                }
                return new Claim(ids, heldBack);
            } finally {
                c.rollback();
            }
        }
    }

    /** A random outbox: endpoints of every state, deliveries of every state, some ages tied. */
    private static void fill(DataSource dataSource, Random random) throws SQLException {
        try (Connection c = dataSource.getConnection();
                Statement s = c.createStatement()) {
            s.execute("DELETE FROM deliveries");
            s.execute("DELETE FROM webhook_endpoints");
            int endpoints = 3 + random.nextInt(10);
            for (int e = 0; e < endpoints; e++) {
                int kind = random.nextInt(10);
                endpoint(
                        c,
                        "we_" + e,
                        kind != 0,
                        kind == 1 ? Long.valueOf(NOW - 5) : null,
                        kind == 2 ? Long.valueOf(NOW + 5_000) : (kind == 3 ? Long.valueOf(NOW - 1) : null));
            }
            try (PreparedStatement insert = c.prepareStatement("""
                    INSERT INTO deliveries (id, endpoint_id, account_id, event_id, event_type, payload, status,
                        attempts, next_attempt_at, lease_owner, lease_token, lease_expires_at, created_at)
                    VALUES (?, ?, 'acct', ?, 'payment.succeeded', ?, ?, 0, ?, ?, ?, ?, 1)""")) {
                int n = random.nextInt(200);
                for (int d = 0; d < n; d++) {
                    String endpoint = "we_" + random.nextInt(endpoints + 1); // one endpoint that does not exist
                    int kind = random.nextInt(10);
                    String status;
                    Long due;
                    boolean held = false;
                    switch (kind) {
                        case 0 -> {
                            status = "delivering"; // a live claim
                            due = NOW + 1 + random.nextInt(30_000);
                            held = true;
                        }
                        case 1 -> {
                            status = "delivering"; // a dead instance's claim: due again
                            due = NOW - random.nextInt(30_000);
                            held = true;
                        }
                        case 2 -> {
                            status = "pending"; // a retry later
                            due = NOW + 1 + random.nextInt(60_000);
                        }
                        case 3 -> {
                            status = "succeeded";
                            due = null;
                        }
                        case 4 -> {
                            status = "pending"; // held: paused endpoint, or waiting for its key
                            due = null;
                        }
                        default -> {
                            status = "pending";
                            due = NOW - random.nextInt(50); // many ties on the due time
                        }
                    }
                    int i = 1;
                    insert.setString(i++, "d_" + String.format("%04d", d));
                    insert.setString(i++, endpoint);
                    insert.setString(i++, "evt_" + d);
                    insert.setBytes(i++, new byte[] {'{', '}'});
                    insert.setString(i++, status);
                    insert.setObject(i++, due);
                    insert.setString(i++, held ? "other" : null);
                    insert.setString(i++, held ? "held_" + d : null);
                    insert.setObject(i, held ? due : null);
                    insert.addBatch();
                }
                insert.executeBatch();
            }
        }
    }

    private static void endpoint(Connection c, String id, boolean enabled, Long pausedAt, Long notBefore)
            throws SQLException {
        try (PreparedStatement s = c.prepareStatement("""
                INSERT INTO webhook_endpoints (id, account_id, url, description, enabled, secret, created_at, updated_at,
                    paused_at, not_before)
                VALUES (?, 'acct', 'https://receiver.example.com/hooks', '', ?, 'whsec_x', 1, 1, ?, ?)""")) {
            s.setString(1, id);
            s.setBoolean(2, enabled);
            s.setObject(3, pausedAt);
            s.setObject(4, notBefore);
            s.executeUpdate();
        }
    }

    private static int dueCount(DataSource dataSource) throws SQLException {
        try (Connection c = dataSource.getConnection();
                Statement s = c.createStatement();
                ResultSet r = s.executeQuery("SELECT COUNT(*) FROM deliveries WHERE next_attempt_at <= " + NOW)) {
            r.next();
            return r.getInt(1);
        }
    }

    /** Index entries read from {@code deliveries}' indexes so far (statistics flushed first). */
    private static long indexEntriesRead(DataSource dataSource) throws SQLException {
        try (Connection c = dataSource.getConnection();
                Statement s = c.createStatement()) {
            s.execute("SELECT pg_stat_clear_snapshot()");
            try (ResultSet r = s.executeQuery(
                    "SELECT COALESCE(SUM(idx_tup_read), 0) FROM pg_stat_user_indexes WHERE relname = 'deliveries'")) {
                r.next();
                return r.getLong(1);
            }
        }
    }

    private static void schema(DataSource dataSource) throws SQLException {
        try (Connection c = dataSource.getConnection();
                Statement s = c.createStatement()) {
            s.execute(DeliverySchema.schemaSql());
        }
    }

    private static DispatcherConfig config(DataSource dataSource) {
        return new DispatcherConfig(
                dataSource,
                new NoSender(),
                Clock.fixed(Instant.ofEpochMilli(NOW), ZoneOffset.UTC),
                RetrySchedule.defaults(),
                Duration.ofSeconds(30),
                100,
                100,
                Duration.ofMillis(100),
                CAP,
                Duration.ofDays(3),
                Duration.ofSeconds(1),
                OWNER,
                new Random(1),
                (transaction, event) -> {},
                Duration.ofSeconds(1),
                attempt -> {});
    }

    /** The scan never sends. */
    private static final class NoSender implements dev.retrysafe.delivery.AttemptSender {
        @Override
        public AttemptResult send(URI url, Map<String, String> headers, byte[] body) {
            throw new AssertionError("nothing is sent");
        }

        @Override
        public void close() {}
    }
}
