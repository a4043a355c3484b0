package dev.retrysafe.liveevents.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.retrysafe.testkit.CountingDataSource;
import dev.retrysafe.testkit.FakeClock;
import dev.retrysafe.testkit.PooledDataSource;
import dev.retrysafe.testkit.PostgresTestDatabase;
import dev.retrysafe.testkit.RepositoryRoot;
import java.io.IOException;
import java.nio.file.Files;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The shared count of open streams on PostgreSQL, with two "instances" (two lease sets over one
 * database) and a fake clock: the limit holds over both, a closed stream's place is free at once,
 * a lease that nobody renews stops counting after its lease, and its instance learns that it was
 * lost. Heartbeats are driven by the test, never by time.
 */
class ConnectionLeasesTest {

    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final String ACCOUNT = "acct_leases";
    private static final String OTHER = "acct_other";

    private final FakeClock clock = new FakeClock();
    private final List<String> lostByFirst = new CopyOnWriteArrayList<>();
    private final PostgresTestDatabase database = PostgresTestDatabase.create();
    private @Nullable PooledDataSource dataSource;

    /**
     * What the leases need of an application's schema: exactly the table docs/live-events.md gives
     * (read from there, so the page cannot drift), and no table of the application's (admissions
     * take turns under an advisory lock, not an account row's lock).
     */
    private static List<String> schema() throws IOException {
        String doc = Files.readString(RepositoryRoot.find().resolve("docs/live-events.md"));
        Matcher block = Pattern.compile("```sql\n(CREATE TABLE stream_leases.*?)```", Pattern.DOTALL)
                .matcher(doc);
        assertThat(block.find())
                .as("the stream_leases table in docs/live-events.md")
                .isTrue();
        return Arrays.stream(block.group(1).split(";"))
                .map(String::strip)
                .filter(statement -> !statement.isEmpty())
                .toList();
    }

    @BeforeEach
    void migrate() throws SQLException, IOException {
        dataSource = new PooledDataSource(new CountingDataSource(database.jdbcUrl(), database.user()), 12);
        try (Connection c = pool().getConnection();
                Statement s = c.createStatement()) {
            for (String statement : schema()) {
                s.execute(statement);
            }
        }
    }

    @AfterEach
    void release() throws SQLException {
        try (database;
                PooledDataSource pool = dataSource) {
            if (pool != null) {
                assertThat(pool.borrowed()).as("connections left borrowed").isZero();
            }
        }
    }

    private ConnectionLeases instance(String name, int max) {
        ConnectionLeases leases = new ConnectionLeases(pool(), name, max, LEASE, clock);
        if (name.equals("first")) {
            leases.onLost(lostByFirst::add);
        }
        return leases;
    }

    @Test
    void theLimitHoldsOverBothInstancesAndAClosedStreamsPlaceIsFreeAtOnce() {
        try (ConnectionLeases first = instance("first", 3);
                ConnectionLeases second = instance("second", 3)) {
            assertThat(first.admit(ACCOUNT, "ws_1")).isEqualTo(Admissions.Decision.ADMITTED);
            assertThat(second.admit(ACCOUNT, "ws_1"))
                    .as("the same id on another instance is another stream")
                    .isEqualTo(Admissions.Decision.ADMITTED);
            assertThat(first.admit(ACCOUNT, "ws_2")).isEqualTo(Admissions.Decision.ADMITTED);

            assertThat(first.admit(ACCOUNT, "ws_3")).isEqualTo(Admissions.Decision.FULL);
            assertThat(second.admit(ACCOUNT, "ws_2")).isEqualTo(Admissions.Decision.FULL);
            assertThat(second.admit(OTHER, "ws_3"))
                    .as("another account counts apart")
                    .isEqualTo(Admissions.Decision.ADMITTED);

            first.release("ws_1");
            assertThat(second.admit(ACCOUNT, "ws_4")).isEqualTo(Admissions.Decision.ADMITTED);
            assertThat(leases(ACCOUNT)).isEqualTo(3);
        }
        assertThat(leases(ACCOUNT) + leases(OTHER))
                .as("closing an instance gives its places back")
                .isZero();
    }

    @Test
    void aRenewedLeaseKeepsItsPlaceAndOneNobodyRenewsStopsCountingAndIsReportedLost() {
        try (ConnectionLeases first = instance("first", 2);
                ConnectionLeases second = instance("second", 2)) {
            first.admit(ACCOUNT, "ws_1");
            first.admit(ACCOUNT, "ws_2");
            clock.advance(LEASE.multipliedBy(2).dividedBy(3));
            first.heartbeat();
            clock.advance(LEASE.multipliedBy(2).dividedBy(3));

            assertThat(second.admit(ACCOUNT, "ws_9"))
                    .as("renewed, still counting")
                    .isEqualTo(Admissions.Decision.FULL);
            assertThat(lostByFirst).isEmpty();

            // the first instance stops renewing (killed, or cut off from the database) for a whole lease
            clock.advance(LEASE);
            assertThat(second.admit(ACCOUNT, "ws_9")).isEqualTo(Admissions.Decision.ADMITTED);
            assertThat(second.admit(ACCOUNT, "ws_10")).isEqualTo(Admissions.Decision.ADMITTED);
            assertThat(leases(ACCOUNT)).as("the expired leases were deleted").isEqualTo(2);

            first.heartbeat();
            assertThat(lostByFirst).as("its streams no longer have places").containsExactlyInAnyOrder("ws_1", "ws_2");
            first.release("ws_1"); // the lost stream closes: nothing of the other instance's is touched
            assertThat(leases(ACCOUNT)).isEqualTo(2);
            assertThat(first.admit(ACCOUNT, "ws_3")).isEqualTo(Admissions.Decision.FULL);
        }
    }

    @Test
    void aLeaseThatCouldNotBeDeletedOnCloseIsDeletedByTheNextHeartbeatNotRenewed() throws SQLException {
        try (ConnectionLeases first = instance("first", 1);
                ConnectionLeases second = instance("second", 1)) {
            first.admit(ACCOUNT, "ws_1");
            try (Connection c = pool().getConnection();
                    Statement s = c.createStatement()) {
                // the lease table cannot be written for a moment: the delete on close fails
                s.execute("ALTER TABLE stream_leases RENAME TO stream_leases_away");
                first.release("ws_1");
                s.execute("ALTER TABLE stream_leases_away RENAME TO stream_leases");
            }
            assertThat(second.admit(ACCOUNT, "ws_2"))
                    .as("still held until the heartbeat")
                    .isEqualTo(Admissions.Decision.FULL);

            first.heartbeat();

            assertThat(second.admit(ACCOUNT, "ws_2")).isEqualTo(Admissions.Decision.ADMITTED);
            assertThat(lostByFirst).isEmpty();
        }
    }

    @Test
    void concurrentAdmissionsOnTwoInstancesNeverExceedTheLimit() throws Exception {
        int limit = 5;
        int perInstance = 12;
        ExecutorService threads = Executors.newFixedThreadPool(2 * perInstance);
        try (ConnectionLeases first = instance("first", limit);
                ConnectionLeases second = instance("second", limit)) {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<Admissions.Decision>> decisions = new ArrayList<>();
            for (int i = 0; i < 2 * perInstance; i++) {
                ConnectionLeases on = i % 2 == 0 ? first : second;
                String id = "ws_" + i;
                decisions.add(threads.submit(() -> {
                    assertThat(start.await(30, TimeUnit.SECONDS))
                            .as("start gate")
                            .isTrue();
                    return on.admit(ACCOUNT, id);
                }));
            }
            start.countDown();
            List<Admissions.Decision> got = new ArrayList<>();
            for (Future<Admissions.Decision> d : decisions) {
                got.add(d.get(30, TimeUnit.SECONDS)); // a failed worker fails the test here
            }

            assertThat(got).filteredOn(d -> d == Admissions.Decision.ADMITTED).hasSize(limit);
            assertThat(got).filteredOn(d -> d == Admissions.Decision.FULL).hasSize(2 * perInstance - limit);
            assertThat(leases(ACCOUNT)).isEqualTo(limit);
        } finally {
            threads.shutdownNow();
            assertThat(threads.awaitTermination(30, TimeUnit.SECONDS))
                    .as("workers ended")
                    .isTrue();
        }
    }

    private PooledDataSource pool() {
        PooledDataSource pool = dataSource;
        if (pool == null) {
            throw new IllegalStateException("not migrated");
        }
        return pool;
    }

    private long leases(String account) {
        try (Connection c = pool().getConnection();
                PreparedStatement s = c.prepareStatement("SELECT COUNT(*) FROM stream_leases WHERE account_id = ?")) {
            s.setString(1, account);
            try (ResultSet r = s.executeQuery()) {
                r.next();
                return r.getLong(1);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
