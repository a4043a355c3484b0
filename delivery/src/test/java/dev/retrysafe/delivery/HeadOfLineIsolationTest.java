package dev.retrysafe.delivery;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.retrysafe.testkit.ThrowawayDatabase;
import java.net.URI;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Fifty endpoints whose receivers hang until the sender's timeout, and one healthy endpoint: the
 * healthy endpoint's deliveries still start within 1 s of their events. Real clock; the hanging
 * receivers are held by a latch, not by time.
 */
class HeadOfLineIsolationTest {

    private static final int HUNG_ENDPOINTS = 50;
    private static final URI HEALTHY = URI.create("https://healthy.example.com/hooks");

    @Test
    void healthyEndpointIsServedWithinOneSecondWhileFiftyEndpointsHang() throws Exception {
        try (ThrowawayDatabase database = ThrowawayDatabase.h2("hol")) {
            try (Connection c = database.dataSource().getConnection();
                    Statement s = c.createStatement()) {
                s.execute(DeliverySchema.schemaSql());
            }
            Clock clock = Clock.systemUTC();
            CountDownLatch hangUp = new CountDownLatch(1);
            FakeSender sender = new FakeSender(clock);
            sender.respond((url, id) -> {
                if (url.equals(HEALTHY)) {
                    return FakeSender.ok();
                }
                // hangs like a receiver that never answers, until the test ends it (bounded)
                hangUp.await(30, TimeUnit.SECONDS);
                return FakeSender.timeout();
            });
            WebhookEndpoints endpoints =
                    WebhookEndpoints.builder(database.dataSource()).clock(clock).build();
            List<URI> hung = new ArrayList<>();
            for (int i = 0; i < HUNG_ENDPOINTS; i++) {
                URI url = URI.create("https://hung-" + i + ".example.com/hooks");
                hung.add(url);
                endpoints.create("acct_hung", new NewEndpoint(url, Set.of("*"), ""));
            }
            endpoints.create("acct_healthy", new NewEndpoint(HEALTHY, Set.of("*"), ""));
            // a backlog for every hanging endpoint, larger than its in-flight cap
            for (int i = 0; i < 12; i++) {
                append(database, "acct_hung", clock.instant());
            }
            Dispatcher dispatcher = Dispatcher.builder(database.dataSource(), sender)
                    .clock(clock)
                    .build();
            try {
                dispatcher.start();
                await().atMost(Duration.ofSeconds(15))
                        .until(() ->
                                sender.inFlight() == HUNG_ENDPOINTS * Dispatcher.DEFAULT_MAX_IN_FLIGHT_PER_ENDPOINT);
                List<Duration> startDelays = new ArrayList<>();
                for (int i = 0; i < 10; i++) {
                    Instant eventTime = clock.instant();
                    append(database, "acct_healthy", eventTime);
                    int expected = i + 1;
                    await().atMost(Duration.ofSeconds(5))
                            .until(() -> sender.sentTo(HEALTHY).size() == expected);
                    startDelays.add(Duration.between(
                            eventTime, sender.sentTo(HEALTHY).getLast().at()));
                }
                assertThat(startDelays).allSatisfy(d -> assertThat(d).isLessThan(Duration.ofSeconds(1)));
                assertThat(sender.inFlight())
                        .as("the hanging endpoints still hang")
                        .isEqualTo(HUNG_ENDPOINTS * Dispatcher.DEFAULT_MAX_IN_FLIGHT_PER_ENDPOINT);
                assertThat(hung)
                        .allSatisfy(url -> assertThat(sender.maxInFlight(url))
                                .isEqualTo(Dispatcher.DEFAULT_MAX_IN_FLIGHT_PER_ENDPOINT));
            } finally {
                hangUp.countDown();
                dispatcher.close();
            }
            assertThat(sender.overlaps()).isEmpty();
            assertThat(dispatcher.metrics().attempts(AttemptResult.Outcome.TIMEOUT))
                    .as("every hanging attempt was stored before close returned")
                    .isEqualTo(HUNG_ENDPOINTS * Dispatcher.DEFAULT_MAX_IN_FLIGHT_PER_ENDPOINT);
            assertThat(dispatcher.queueDepth().delivering())
                    .as("no claim left behind")
                    .isZero();
            assertThat(database.dataSource().openConnections()).isZero();
        }
    }

    private static void append(ThrowawayDatabase database, String account, Instant at) throws Exception {
        try (Connection tx = database.dataSource().getConnection()) {
            tx.setAutoCommit(false);
            String id = "evt_" + java.util.UUID.randomUUID();
            Outbox.create()
                    .append(
                            tx,
                            new OutboxEvent(
                                    id, account, "payment.succeeded", at, ("{\"id\":\"" + id + "\"}").getBytes(UTF_8)));
            tx.commit();
            tx.setAutoCommit(true);
        }
    }
}
