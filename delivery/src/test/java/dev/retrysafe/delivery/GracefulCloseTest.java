package dev.retrysafe.delivery;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.retrysafe.testkit.ThrowawayDatabase;
import java.net.URI;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** Closing lets attempts in flight finish and be stored; a new dispatcher goes on; nothing is lost. */
class GracefulCloseTest {

    private static final URI RECEIVER = URI.create("https://receiver.example.com/hooks");

    @Test
    void inFlightAttemptsFinishOnCloseAndARestartedDispatcherSendsTheRest() throws Exception {
        try (ThrowawayDatabase database = ThrowawayDatabase.h2("close")) {
            try (Connection c = database.dataSource().getConnection();
                    Statement s = c.createStatement()) {
                s.execute(DeliverySchema.schemaSql());
            }
            Clock clock = Clock.systemUTC();
            CountDownLatch receiverMayAnswer = new CountDownLatch(1);
            FakeSender sender = new FakeSender(clock);
            sender.respond((url, id) -> {
                if (!receiverMayAnswer.await(10, TimeUnit.SECONDS)) {
                    throw new AssertionError("the test never let the receiver answer");
                }
                return FakeSender.ok();
            });
            WebhookEndpoints.builder(database.dataSource())
                    .clock(clock)
                    .build()
                    .create("acct_1", new NewEndpoint(RECEIVER, Set.of("*"), ""));
            for (int i = 0; i < 15; i++) {
                try (Connection tx = database.dataSource().getConnection()) {
                    tx.setAutoCommit(false);
                    Outbox.create()
                            .append(
                                    tx,
                                    new OutboxEvent(
                                            "evt_" + i,
                                            "acct_1",
                                            "payment.succeeded",
                                            clock.instant(),
                                            "{}".getBytes(UTF_8)));
                    tx.commit();
                    tx.setAutoCommit(true);
                }
            }
            Dispatcher first = Dispatcher.builder(database.dataSource(), sender)
                    .clock(clock)
                    .maxInFlightPerEndpoint(10)
                    .build();
            first.start();
            await().atMost(Duration.ofSeconds(5)).until(() -> sender.inFlight() == 10);

            // the receiver answers only once close() has stopped the claims: answered earlier, a freed
            // slot could start an eleventh attempt before close() began (seen in CI). close() sets its
            // flag before its first timed wait (for the loop, then for the attempts); until then it
            // runs or waits on a lock untimed, so a timed wait means the dispatcher claims no more
            Thread closer = Thread.ofPlatform().name("closer").start(first::close);
            await().atMost(Duration.ofSeconds(5))
                    .until(() -> closer.getState() == Thread.State.TIMED_WAITING || !closer.isAlive());
            receiverMayAnswer.countDown();
            closer.join(Duration.ofSeconds(10));
            assertThat(closer.isAlive()).as("close() returned").isFalse();

            assertThat(first.metrics().deliveriesSucceeded())
                    .as("in-flight attempts finished and stored")
                    .isEqualTo(10);
            assertThat(statuses(database)).isEqualTo(Map.of("succeeded", 10L, "pending", 5L));
            assertThat(first.queueDepth()).isEqualTo(new QueueDepth(5, 0, 0));

            try (Dispatcher second = Dispatcher.builder(database.dataSource(), sender)
                    .clock(clock)
                    .build()) {
                assertThat(second.dispatchDue()).isEqualTo(5);
            }
            assertThat(statuses(database)).isEqualTo(Map.of("succeeded", 15L));
            assertThat(sender.sent().stream()
                            .collect(Collectors.groupingBy(FakeSender.Sent::deliveryId, Collectors.counting()))
                            .values())
                    .hasSize(15)
                    .containsOnly(1L);
            assertThat(database.dataSource().openConnections()).isZero();
        }
    }

    @Test
    void attemptsWaitingForTheirRateSlotGiveTheirClaimsBackOnClose() throws Exception {
        try (ThrowawayDatabase database = ThrowawayDatabase.h2("close_rate")) {
            try (Connection c = database.dataSource().getConnection();
                    Statement s = c.createStatement()) {
                s.execute(DeliverySchema.schemaSql());
            }
            Clock clock = Clock.systemUTC();
            FakeSender sender = new FakeSender(clock);
            WebhookEndpoints.builder(database.dataSource())
                    .clock(clock)
                    .build()
                    .create("acct_1", new NewEndpoint(RECEIVER, Set.of("*"), "", 1));
            for (int i = 0; i < 4; i++) {
                try (Connection tx = database.dataSource().getConnection()) {
                    tx.setAutoCommit(false);
                    Outbox.create()
                            .append(
                                    tx,
                                    new OutboxEvent(
                                            "evt_" + i,
                                            "acct_1",
                                            "payment.succeeded",
                                            clock.instant(),
                                            "{}".getBytes(UTF_8)));
                    tx.commit();
                    tx.setAutoCommit(true);
                }
            }
            // the endpoint's next free slot is 5 s away: every attempt claimed now waits for it
            long fiveSecondsAhead = (clock.millis() + 5_000) * 1_000_000L;
            try (Connection c = database.dataSource().getConnection();
                    Statement s = c.createStatement()) {
                s.execute("UPDATE webhook_endpoints SET rate_next_slot_ns = " + fiveSecondsAhead);
            }
            Dispatcher dispatcher = Dispatcher.builder(database.dataSource(), sender)
                    .clock(clock)
                    .rateLookahead(Duration.ofSeconds(10))
                    .build();
            dispatcher.start();
            await().atMost(Duration.ofSeconds(5))
                    .until(() -> dispatcher.metrics().inFlight() == 4);

            CompletableFuture.runAsync(dispatcher::close).get(4, TimeUnit.SECONDS);

            assertThat(sender.sent()).as("no attempt started before its slot").isEmpty();
            assertThat(statuses(database)).isEqualTo(Map.of("pending", 4L));
            assertThat(dispatcher.queueDepth()).isEqualTo(new QueueDepth(4, 0, 0));
            assertThat(database.dataSource().openConnections()).isZero();
        }
    }

    private static Map<String, Long> statuses(ThrowawayDatabase database) throws Exception {
        try (Connection c = database.dataSource().getConnection();
                Statement s = c.createStatement();
                ResultSet r = s.executeQuery(
                        "SELECT status, COUNT(*) FROM deliveries WHERE lease_token IS NULL " + "GROUP BY status")) {
            Map<String, Long> out = new java.util.HashMap<>();
            while (r.next()) {
                out.put(r.getString(1), r.getLong(2));
            }
            return out;
        }
    }
}
