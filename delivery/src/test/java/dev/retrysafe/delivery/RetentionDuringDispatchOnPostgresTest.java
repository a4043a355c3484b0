package dev.retrysafe.delivery;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.retrysafe.delivery.internal.Purger;
import dev.retrysafe.testkit.PooledDataSource;
import dev.retrysafe.testkit.ThrowawayDatabase;
import java.net.URI;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * Dispatch of fresh work goes on while a purge of 100,000 old deliveries (and their 100,000
 * attempts) is under way on PostgreSQL: the purge is held inside one of its delivery batches,
 * with that batch's row locks and open transaction, while fresh deliveries are claimed, attempted
 * and recorded; then the purge finishes and has removed exactly the old rows. And the purge of
 * unused ordering keys meets a fan-out of the same key in both orders, after which the key is
 * still numbered in commit order and only its head is due.
 */
class RetentionDuringDispatchOnPostgresTest {

    private static final int OLD = 100_000;
    private static final int FRESH = 20;

    @Test
    void freshDeliveriesAreDeliveredWhileAPurgeOf100000RowsHoldsABatchOpen() throws Exception {
        try (ThrowawayDatabase database = ThrowawayDatabase.postgres();
                PooledDataSource pool = new PooledDataSource(database.dataSource(), 8)) {
            try (Connection c = pool.getConnection();
                    Statement s = c.createStatement()) {
                s.execute(DeliverySchema.schemaSql());
            }
            Clock clock = Clock.systemUTC();
            String endpoint = WebhookEndpoints.builder(pool)
                    .clock(clock)
                    .build()
                    .create("acct_1", new NewEndpoint(URI.create("https://a.example.com/"), Set.of("*"), ""))
                    .endpoint()
                    .id();
            long old = clock.millis() - Duration.ofDays(40).toMillis();
            // given 100,000 finished deliveries and their attempts, 40 days old (one statement each)
            try (Connection c = pool.getConnection();
                    PreparedStatement d = c.prepareStatement("INSERT INTO deliveries (id, endpoint_id, account_id,"
                            + " event_id, event_type, payload, status, attempts, next_attempt_at, created_at)"
                            + " SELECT 'msg_old_' || g, ?, 'acct_1', 'evt_old_' || g, 'payment.succeeded',"
                            + " '\\x7b7d'::bytea, 'succeeded', 1, NULL, ? + g FROM generate_series(1, ?) g");
                    PreparedStatement a = c.prepareStatement("INSERT INTO delivery_attempts (id, delivery_id,"
                            + " attempt_number, started_at, outcome, status_code, latency_ms, response_snippet,"
                            + " error_detail) SELECT 'att_old_' || g, 'msg_old_' || g, 1, ? + g, 'SUCCESS', 200, 3,"
                            + " '', '' FROM generate_series(1, ?) g");
                    Statement analyze = c.createStatement()) {
                d.setString(1, endpoint);
                d.setLong(2, old);
                d.setInt(3, OLD);
                assertThat(d.executeUpdate()).isEqualTo(OLD);
                a.setLong(1, old);
                a.setInt(2, OLD);
                assertThat(a.executeUpdate()).isEqualTo(OLD);
                analyze.execute("ANALYZE deliveries");
                analyze.execute("ANALYZE delivery_attempts");
            }

            // the purge holds its 10th batch of deliveries open until the fresh work is done
            CountDownLatch holding = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            AtomicInteger deliveryBatches = new AtomicInteger();
            DeliveryRetention retention = DeliveryRetention.builder(pool)
                    .clock(clock)
                    .retention(Duration.ofDays(30))
                    .batchSize(1_000) // small still: 200 transactions of one table's rows in all
                    .beforeCommit(table -> {
                        if (table.equals("deliveries") && deliveryBatches.incrementAndGet() == 10) {
                            holding.countDown();
                            if (!release.await(60, TimeUnit.SECONDS)) {
                                throw new IllegalStateException("never released");
                            }
                        }
                    })
                    .build();
            CompletableFuture<DeliveryRetention.Purged> purge = CompletableFuture.supplyAsync(() -> {
                try {
                    return retention.purge();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException(e);
                }
            });
            try {
                assertThat(holding.await(30, TimeUnit.SECONDS))
                        .as("the purge reached its 10th delivery batch")
                        .isTrue();

                // when fresh events come while the purge holds a batch open
                FakeSender sender = new FakeSender(clock);
                try (Connection tx = pool.getConnection()) {
                    tx.setAutoCommit(false);
                    for (int i = 0; i < FRESH; i++) {
                        Outbox.create()
                                .append(
                                        tx,
                                        new OutboxEvent(
                                                "evt_fresh_" + i,
                                                "acct_1",
                                                "payment.succeeded",
                                                clock.instant(),
                                                "{}".getBytes(UTF_8)));
                    }
                    tx.commit();
                    tx.setAutoCommit(true);
                }
                // then they are claimed, attempted and recorded without waiting for the purge
                try (Dispatcher dispatcher = Dispatcher.builder(pool, sender)
                        .clock(clock)
                        .instanceId("fresh")
                        .build()) {
                    // (one endpoint takes 10 attempts at once by default: two rounds)
                    int delivered = assertTimeoutPreemptively(
                            Duration.ofSeconds(10),
                            () -> {
                                int sum = 0;
                                for (int n; (n = dispatcher.dispatchDue()) > 0; ) {
                                    sum += n;
                                }
                                return sum;
                            },
                            "dispatch waited for the purge");
                    assertThat(delivered).isEqualTo(FRESH);
                }
                assertThat(purge).as("the purge was still under way").isNotDone();
                assertThat(DeliveryRetentionTest.ids(
                                pool,
                                "SELECT id FROM deliveries WHERE status = 'succeeded' AND id LIKE 'msg_%'"
                                        + " AND event_id LIKE 'evt_fresh_%'"))
                        .hasSize(FRESH);
            } finally {
                release.countDown();
            }

            DeliveryRetention.Purged purged = purge.get(60, TimeUnit.SECONDS);
            assertThat(purged.attempts()).isEqualTo(OLD);
            assertThat(purged.deliveries()).isEqualTo(OLD);
            assertThat(DeliveryRetentionTest.ids(pool, "SELECT event_id FROM deliveries"))
                    .hasSize(FRESH)
                    .allSatisfy(id -> assertThat(id).startsWith("evt_fresh_"));
            assertThat(DeliveryRetentionTest.ids(pool, "SELECT id FROM delivery_attempts"))
                    .hasSize(FRESH);
            assertThat(pool.borrowed()).isZero();
        }
    }

    private static final String KEY = "pay_1";

    @Test
    void aFanOutThatCommitsWhileThePurgeRunsKeepsItsKeysNumbering() throws Exception {
        try (ThrowawayDatabase database = ThrowawayDatabase.postgres();
                PooledDataSource pool = new PooledDataSource(database.dataSource(), 8)) {
            Clock clock = Clock.systemUTC();
            WebhookEndpoints endpoints =
                    WebhookEndpoints.builder(pool).clock(clock).build();
            String endpoint = orderedEndpoint(pool, endpoints);
            long old = clock.millis() - Duration.ofDays(40).toMillis();
            // given a key whose only delivery is old and finished: the purge will find the key unused
            try (Connection c = pool.getConnection()) {
                DeliveryRetentionTest.key(c, endpoint, KEY, 3);
                orderedDelivery(c, endpoint, "msg_old", old, "succeeded", null, 3);
            }
            DeliveryRetention retention = DeliveryRetention.builder(pool)
                    .clock(clock)
                    .retention(Duration.ofDays(30))
                    .build();

            // when a fan-out of the key has numbered its delivery and not yet committed
            CompletableFuture<DeliveryRetention.Purged> purge;
            try (Connection tx = pool.getConnection()) {
                tx.setAutoCommit(false);
                Outbox.create().append(tx, event("evt_first", clock));
                // and the purge runs (to its end, or until it waits for the fan-out's lock)
                purge = CompletableFuture.supplyAsync(() -> purge(retention));
                await().atMost(Duration.ofSeconds(20))
                        .pollInterval(Duration.ofMillis(10))
                        .until(() -> purge.isDone() || waitingForALock(pool));
                // then the fan-out commits
                tx.commit();
                tx.setAutoCommit(true);
            }
            DeliveryRetention.Purged purged = purge.get(20, TimeUnit.SECONDS);

            // then the key was passed over and its numbering goes on where it was
            assertThat(purged.deliveries()).isEqualTo(1);
            assertThat(purged.orderingKeys()).as("the key being numbered").isZero();
            assertThat(DeliveryRetentionTest.ids(pool, "SELECT last_seq FROM delivery_ordering_keys"))
                    .containsExactly("4");
            try (Connection tx = pool.getConnection()) {
                tx.setAutoCommit(false);
                Outbox.create().append(tx, event("evt_second", clock));
                tx.commit();
                tx.setAutoCommit(true);
            }
            assertThat(keyState(pool)).containsExactly("evt_first:4:due", "evt_second:5:held");
            // and a pause and resume (which releases each key's head by its number) keeps one head
            endpoints.pause("acct_1", endpoint);
            endpoints.resume("acct_1", endpoint);
            assertThat(keyState(pool)).containsExactly("evt_first:4:due", "evt_second:5:held");
            assertThat(pool.borrowed()).isZero();
        }
    }

    @Test
    void aFanOutThatMeetsThePurgesLockMakesTheKeyAgainAsItsFirst() throws Exception {
        try (ThrowawayDatabase database = ThrowawayDatabase.postgres();
                PooledDataSource pool = new PooledDataSource(database.dataSource(), 8)) {
            Clock clock = Clock.systemUTC();
            WebhookEndpoints endpoints =
                    WebhookEndpoints.builder(pool).clock(clock).build();
            String endpoint = orderedEndpoint(pool, endpoints);
            try (Connection c = pool.getConnection()) {
                DeliveryRetentionTest.key(c, endpoint, KEY, 9); // no delivery uses it any more
            }
            // given the purge holding the unused key's lock, not yet deleted
            CompletableFuture<Void> fanOut = new CompletableFuture<>();
            DeliveryRetention retention = DeliveryRetention.builder(pool)
                    .clock(clock)
                    .retention(Duration.ofDays(30))
                    .beforeCommit(new Purger.BatchHook() {
                        @Override
                        public void beforeCommit(String table) {}

                        @Override
                        public void keysLocked() {
                            if (fanOut.isDone()) {
                                return; // the later chunks
                            }
                            // when a fan-out of the key comes now: it finds the row and waits for its lock
                            CompletableFuture.runAsync(() -> {
                                        try (Connection tx = pool.getConnection()) {
                                            tx.setAutoCommit(false);
                                            Outbox.create().append(tx, event("evt_after", clock));
                                            tx.commit();
                                            tx.setAutoCommit(true);
                                        } catch (SQLException e) {
                                            throw new IllegalStateException(e);
                                        }
                                    })
                                    .whenComplete((ok, e) -> {
                                        if (e == null) {
                                            fanOut.complete(null);
                                        } else {
                                            fanOut.completeExceptionally(e);
                                        }
                                    });
                            await().atMost(Duration.ofSeconds(20))
                                    .pollInterval(Duration.ofMillis(10))
                                    .until(() -> fanOut.isDone() || waitingForALock(pool));
                        }
                    })
                    .build();
            DeliveryRetention.Purged purged = retention.purge();
            fanOut.get(20, TimeUnit.SECONDS);

            // then the purge deleted the row, and the fan-out made it again: its delivery is the head
            assertThat(purged.orderingKeys()).isEqualTo(1);
            assertThat(DeliveryRetentionTest.ids(pool, "SELECT last_seq FROM delivery_ordering_keys"))
                    .containsExactly("1");
            assertThat(keyState(pool)).containsExactly("evt_after:1:due");
            assertThat(pool.borrowed()).isZero();
        }
    }

    /** The schema and one ordered endpoint; answers its id. */
    private static String orderedEndpoint(PooledDataSource pool, WebhookEndpoints endpoints) throws SQLException {
        try (Connection c = pool.getConnection();
                Statement s = c.createStatement()) {
            s.execute(DeliverySchema.schemaSql());
        }
        return endpoints
                .create("acct_1", new NewEndpoint(URI.create("https://a.example.com/"), Set.of("*"), "", null, true))
                .endpoint()
                .id();
    }

    private static OutboxEvent event(String id, Clock clock) {
        return new OutboxEvent(id, "acct_1", "payment.updated", clock.instant(), "{}".getBytes(UTF_8))
                .withOrderingKey(KEY);
    }

    private static DeliveryRetention.Purged purge(DeliveryRetention retention) {
        try {
            return retention.purge();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Whether a session of the test's database waits for a row lock. */
    private static boolean waitingForALock(PooledDataSource pool) throws SQLException {
        try (Connection c = pool.getConnection();
                Statement s = c.createStatement();
                ResultSet r = s.executeQuery("SELECT count(*) FROM pg_stat_activity"
                        + " WHERE datname = current_database() AND wait_event_type = 'Lock'")) {
            r.next();
            return r.getInt(1) > 0;
        }
    }

    /** The key's deliveries in number order, as event:number:due|held. */
    private static List<String> keyState(PooledDataSource pool) throws SQLException {
        return DeliveryRetentionTest.ids(
                pool,
                "SELECT event_id || ':' || ordering_seq || ':'"
                        + " || CASE WHEN next_attempt_at IS NULL THEN 'held' ELSE 'due' END"
                        + " FROM deliveries WHERE status IN ('pending', 'delivering') ORDER BY ordering_seq");
    }

    private static void orderedDelivery(
            Connection c, String endpoint, String id, long createdAt, String status, @Nullable Long next, long seq)
            throws SQLException {
        DeliveryRetentionTest.orderedDelivery(c, endpoint, id, createdAt, status, next, KEY, seq);
    }
}
