package dev.retrysafe.delivery;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.retrysafe.testkit.PooledDataSource;
import dev.retrysafe.testkit.ThrowawayDatabase;
import java.net.URI;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Two started dispatchers on one PostgreSQL database, with the real clock and the default rate
 * look-ahead (attempts wait for their slots): a rate-limited endpoint's attempts never come
 * sooner than its rate allows, counted across both instances, while another endpoint's
 * deliveries go out at once. The assertion cannot fail because the machine is slow: the i-th
 * attempt to the limited endpoint must not start before {@code start + i / rate}, and slowness
 * only makes attempts later.
 */
class RateLimitOnPostgresTest {

    private static final int RATE = 40;
    private static final int LIMITED_EVENTS = 60;
    private static final int OTHER_EVENTS = 20;
    private static final URI LIMITED = URI.create("https://limited.example.com/");
    private static final URI OTHER = URI.create("https://other.example.com/");

    @Test
    void twoInstancesTogetherKeepOneEndpointsRateAndOthersAreNotDelayed() throws Exception {
        try (ThrowawayDatabase database = ThrowawayDatabase.postgres();
                PooledDataSource pool = new PooledDataSource(database.dataSource(), 16)) {
            try (Connection c = pool.getConnection();
                    Statement s = c.createStatement()) {
                s.execute(DeliverySchema.schemaSql());
            }
            Clock clock = Clock.systemUTC();
            FakeSender sender = new FakeSender(clock);
            WebhookEndpoints endpoints =
                    WebhookEndpoints.builder(pool).clock(clock).build();
            endpoints.create("acct_limited", new NewEndpoint(LIMITED, Set.of("*"), "", RATE));
            endpoints.create("acct_other", new NewEndpoint(OTHER, Set.of("*"), ""));
            List<Dispatcher> dispatchers = new ArrayList<>();
            for (String name : List.of("instance-a", "instance-b")) {
                dispatchers.add(Dispatcher.builder(pool, sender)
                        .clock(clock)
                        .instanceId(name)
                        .pollInterval(Duration.ofMillis(20))
                        .build());
            }
            Instant start = clock.instant();
            try {
                dispatchers.forEach(Dispatcher::start);
                try (Connection tx = pool.getConnection()) {
                    tx.setAutoCommit(false);
                    for (int n = 0; n < LIMITED_EVENTS + OTHER_EVENTS; n++) {
                        String id = "evt_" + n;
                        String account = n < LIMITED_EVENTS ? "acct_limited" : "acct_other";
                        Outbox.create()
                                .append(
                                        tx,
                                        new OutboxEvent(
                                                id,
                                                account,
                                                "payment.succeeded",
                                                clock.instant(),
                                                ("{\"id\":\"" + id + "\"}").getBytes(UTF_8)));
                    }
                    tx.commit();
                    tx.setAutoCommit(true);
                }
                dispatchers.forEach(Dispatcher::wakeUp);

                await().atMost(Duration.ofSeconds(30))
                        .pollInterval(Duration.ofMillis(50))
                        .until(() -> dispatchers.stream()
                                        .mapToLong(d -> d.metrics().deliveriesSucceeded())
                                        .sum()
                                == LIMITED_EVENTS + OTHER_EVENTS);
            } finally {
                dispatchers.forEach(Dispatcher::close);
            }

            List<Instant> limited = sender.sentTo(LIMITED).stream()
                    .map(FakeSender.Sent::at)
                    .sorted()
                    .toList();
            assertThat(limited).hasSize(LIMITED_EVENTS);
            long interval = Math.ceilDiv(1_000_000_000L, RATE);
            for (int i = 0; i < limited.size(); i++) {
                assertThat(limited.get(i))
                        .as("attempt %d to the limited endpoint", i)
                        .isAfterOrEqualTo(start.plusNanos(i * interval));
            }
            Instant lastOther = sender.sentTo(OTHER).stream()
                    .map(FakeSender.Sent::at)
                    .max(Instant::compareTo)
                    .orElseThrow();
            assertThat(lastOther)
                    .as("the other endpoint's deliveries do not wait for the limited one's slots")
                    .isBefore(limited.getLast());
            Map<String, Long> sends = sender.sent().stream()
                    .collect(Collectors.groupingBy(FakeSender.Sent::deliveryId, Collectors.counting()));
            assertThat(sends.values()).as("each delivery sent exactly once").containsOnly(1L);
            assertThat(sender.overlaps()).isEmpty();
            assertThat(pool.borrowed()).as("connections left borrowed").isZero();
        }
    }
}
