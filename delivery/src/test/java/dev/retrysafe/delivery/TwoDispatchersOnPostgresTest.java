package dev.retrysafe.delivery;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.retrysafe.testkit.PooledDataSource;
import dev.retrysafe.testkit.ThrowawayDatabase;
import java.net.URI;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Two dispatcher instances share one PostgreSQL database and 2,000 events (one delivery each):
 * every delivery is attempted exactly once, never by both at once, and all succeed.
 */
class TwoDispatchersOnPostgresTest {

    private static final int EVENTS = 2_000;
    private static final int ACCOUNTS = 8;

    @Test
    void everyDeliveryIsSentOnceAndNeverByBothInstancesAtOnce() throws Exception {
        try (ThrowawayDatabase database = ThrowawayDatabase.postgres();
                PooledDataSource pool = new PooledDataSource(database.dataSource(), 24)) {
            try (Connection c = pool.getConnection();
                    Statement s = c.createStatement()) {
                s.execute(DeliverySchema.schemaSql());
            }
            Clock clock = Clock.systemUTC();
            FakeSender sender = new FakeSender(clock);
            sender.respond((url, id) -> {
                LockSupport.parkNanos(Duration.ofMillis(1).toNanos()); // the receiver's own work
                return FakeSender.ok();
            });
            WebhookEndpoints endpoints =
                    WebhookEndpoints.builder(pool).clock(clock).build();
            for (int a = 0; a < ACCOUNTS; a++) {
                endpoints.create(
                        "acct_" + a, new NewEndpoint(URI.create("https://r" + a + ".example.com/"), Set.of("*"), ""));
            }
            List<Dispatcher> dispatchers = new ArrayList<>();
            for (String name : List.of("instance-a", "instance-b")) {
                dispatchers.add(Dispatcher.builder(pool, sender)
                        .clock(clock)
                        .instanceId(name)
                        .pollInterval(Duration.ofMillis(20))
                        .build());
            }
            try {
                dispatchers.forEach(Dispatcher::start);
                // events arrive while both dispatchers run, in transactions of 50
                for (int batch = 0; batch < EVENTS / 50; batch++) {
                    try (Connection tx = pool.getConnection()) {
                        tx.setAutoCommit(false);
                        for (int i = 0; i < 50; i++) {
                            int n = batch * 50 + i;
                            String id = "evt_" + n;
                            Outbox.create()
                                    .append(
                                            tx,
                                            new OutboxEvent(
                                                    id,
                                                    "acct_" + (n % ACCOUNTS),
                                                    "payment.succeeded",
                                                    clock.instant(),
                                                    ("{\"id\":\"" + id + "\"}").getBytes(UTF_8)));
                        }
                        tx.commit();
                        tx.setAutoCommit(true);
                    }
                }

                await().atMost(Duration.ofSeconds(40))
                        .pollInterval(Duration.ofMillis(50))
                        .until(() -> dispatchers.stream()
                                        .mapToLong(d -> d.metrics().deliveriesSucceeded())
                                        .sum()
                                == (long) EVENTS);
            } finally {
                dispatchers.forEach(Dispatcher::close);
            }

            assertThat(sender.overlaps())
                    .as("attempts of one delivery in flight at once")
                    .isEmpty();
            Map<String, Long> sends = sender.sent().stream()
                    .collect(Collectors.groupingBy(FakeSender.Sent::deliveryId, Collectors.counting()));
            assertThat(sends).hasSize(EVENTS);
            assertThat(sends.values()).as("each delivery sent exactly once").containsOnly(1L);
            assertThat(dispatchers)
                    .allSatisfy(d -> assertThat(d.metrics().attemptsTotal())
                            .as("%s did part of the work", d.instanceId())
                            .isPositive());
            assertThat(dispatchers.getFirst().queueDepth()).isEqualTo(new QueueDepth(0, 0, 0));
            try (Connection c = pool.getConnection();
                    Statement s = c.createStatement();
                    ResultSet r = s.executeQuery("SELECT status, COUNT(*) FROM deliveries GROUP BY status")) {
                Map<String, Long> byStatus = new java.util.HashMap<>();
                while (r.next()) {
                    byStatus.put(r.getString(1), r.getLong(2));
                }
                assertThat(byStatus).isEqualTo(Map.of("succeeded", (long) EVENTS));
            }
            for (URI url :
                    sender.sent().stream().map(FakeSender.Sent::url).distinct().toList()) {
                assertThat(sender.maxInFlight(url))
                        .as("in flight to %s", url)
                        .isLessThanOrEqualTo(2 * Dispatcher.DEFAULT_MAX_IN_FLIGHT_PER_ENDPOINT);
            }
            assertThat(pool.borrowed()).as("connections left borrowed").isZero();
        }
    }
}
