package dev.retrysafe.delivery;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.retrysafe.testkit.PooledDataSource;
import dev.retrysafe.testkit.ThrowawayDatabase;
import java.net.URI;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Dispatch of fresh work goes on while a purge of 100,000 old deliveries (and their 100,000
 * attempts) is under way on PostgreSQL: the purge is held inside one of its delivery batches,
 * with that batch's row locks and open transaction, while fresh deliveries are claimed, attempted
 * and recorded; then the purge finishes and has removed exactly the old rows.
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
}
