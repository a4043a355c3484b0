package dev.retrysafe.delivery;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.retrysafe.testkit.FakeClock;
import dev.retrysafe.testkit.PooledDataSource;
import dev.retrysafe.testkit.ThrowawayDatabase;
import java.net.URI;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * An endpoint's custom headers and an event's {@code traceparent} go on every attempt, on H2 and
 * on PostgreSQL (whose claim reads them back in the claiming update itself), and the endpoint is
 * shown with the headers' names only.
 */
class EndpointHeadersAndTraceTest {

    private static final String ACCOUNT = "acct_1";
    private static final String TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    private static final String KEY_VALUE = "sk_live_7f3a9c2e";

    static Stream<Arguments> databases() {
        return Stream.of(
                Arguments.of("H2", (Supplier<ThrowawayDatabase>) () -> ThrowawayDatabase.h2("headers")),
                Arguments.of("PostgreSQL", (Supplier<ThrowawayDatabase>) ThrowawayDatabase::postgres));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("databases")
    void customHeadersAndTheTraceContextGoOnEveryAttempt(String name, Supplier<ThrowawayDatabase> databases)
            throws Exception {
        try (ThrowawayDatabase database = databases.get();
                PooledDataSource pool = new PooledDataSource(database.dataSource(), 4)) {
            schema(pool);
            FakeClock clock = new FakeClock(Instant.parse("2026-03-01T10:00:00Z"));
            FakeSender sender = new FakeSender(clock);
            sender.respond((url, id) -> sender.sent().size() < 3 ? FakeSender.status(500) : FakeSender.ok());
            WebhookEndpoints endpoints =
                    WebhookEndpoints.builder(pool).clock(clock).build();
            Map<String, String> headers = new LinkedHashMap<>();
            headers.put("X-Api-Key", KEY_VALUE);
            headers.put("X-Tenant", "t-42");
            WebhookEndpoint created = endpoints
                    .create(
                            ACCOUNT,
                            new NewEndpoint(URI.create("https://a.example.com/hooks"), Set.of("*"), "")
                                    .withHeaders(headers))
                    .endpoint();

            // the endpoint shows the names, never a value
            assertThat(created.headerNames()).containsExactlyInAnyOrder("X-Api-Key", "X-Tenant");
            WebhookEndpoint read = endpoints.get(ACCOUNT, created.id()).orElseThrow();
            assertThat(read.toString()).doesNotContain(KEY_VALUE);
            assertThat(WebhookEndpointRepresentation.of(read))
                    .containsEntry("header_names", List.of("X-Api-Key", "X-Tenant"))
                    .doesNotContainKey("headers");
            assertThat(WebhookEndpointRepresentation.of(read).toString()).doesNotContain(KEY_VALUE);

            // an event with a trace context, attempted three times (two failures, one success)
            OutboxEvent event = new OutboxEvent(
                            "evt_1",
                            ACCOUNT,
                            "payment.succeeded",
                            clock.instant(),
                            "{\"id\":\"evt_1\"}".getBytes(UTF_8))
                    .withTraceparent(TRACEPARENT);
            try (Connection tx = pool.getConnection()) {
                tx.setAutoCommit(false);
                Outbox.create().append(tx, event);
                tx.commit();
                tx.setAutoCommit(true);
            }
            try (Dispatcher dispatcher = Dispatcher.builder(pool, sender)
                    .clock(clock)
                    .schedule(RetrySchedule.builder()
                            .delays(List.of(Duration.ZERO, Duration.ofSeconds(5), Duration.ofSeconds(5)))
                            .jitter(0)
                            .build())
                    .build()) {
                for (int attempt = 0; attempt < 3; attempt++) {
                    assertThat(dispatcher.dispatchDue())
                            .as("attempt %d", attempt + 1)
                            .isEqualTo(1);
                    clock.advance(Duration.ofSeconds(5));
                }
            }

            assertThat(sender.sent()).hasSize(3).allSatisfy(sent -> {
                assertThat(sent.headers())
                        .containsEntry("X-Api-Key", KEY_VALUE)
                        .containsEntry("X-Tenant", "t-42")
                        .containsEntry("traceparent", TRACEPARENT)
                        .containsKeys("webhook-id", "webhook-signature", "webhook-timestamp");
            });

            // a patch replaces the whole set; an empty one removes them
            WebhookEndpoint patched = endpoints
                    .update(
                            ACCOUNT,
                            created.id(),
                            EndpointUpdate.builder()
                                    .headers(Map.of("Authorization", "Bearer t"))
                                    .build())
                    .orElseThrow();
            assertThat(patched.headerNames()).containsExactly("Authorization");
            assertThat(endpoints
                            .update(
                                    ACCOUNT,
                                    created.id(),
                                    EndpointUpdate.builder().description("kept").build())
                            .orElseThrow()
                            .headerNames())
                    .as("a patch without headers keeps them")
                    .containsExactly("Authorization");
            assertThat(endpoints
                            .update(
                                    ACCOUNT,
                                    created.id(),
                                    EndpointUpdate.builder().headers(Map.of()).build())
                            .orElseThrow()
                            .headerNames())
                    .isEmpty();
            assertThat(pool.borrowed()).isZero();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("databases")
    void anEventWithoutTraceContextIsSentWithoutOne(String name, Supplier<ThrowawayDatabase> databases)
            throws Exception {
        try (ThrowawayDatabase database = databases.get();
                PooledDataSource pool = new PooledDataSource(database.dataSource(), 4)) {
            schema(pool);
            FakeClock clock = new FakeClock(Instant.parse("2026-03-01T10:00:00Z"));
            FakeSender sender = new FakeSender(clock);
            WebhookEndpoints.builder(pool)
                    .clock(clock)
                    .build()
                    .create(ACCOUNT, new NewEndpoint(URI.create("https://a.example.com/hooks"), Set.of("*"), ""));
            try (Connection tx = pool.getConnection()) {
                tx.setAutoCommit(false);
                Outbox.create()
                        .append(
                                tx,
                                new OutboxEvent(
                                        "evt_1", ACCOUNT, "payment.succeeded", clock.instant(), "{}".getBytes(UTF_8)));
                tx.commit();
                tx.setAutoCommit(true);
            }
            try (Dispatcher dispatcher =
                    Dispatcher.builder(pool, sender).clock(clock).build()) {
                assertThat(dispatcher.dispatchDue()).isEqualTo(1);
            }
            assertThat(sender.sent().getFirst().headers())
                    .doesNotContainKey("traceparent")
                    .containsOnlyKeys("webhook-id", "webhook-signature", "webhook-timestamp");
        }
    }

    private static void schema(PooledDataSource pool) throws Exception {
        try (Connection c = pool.getConnection();
                Statement s = c.createStatement()) {
            s.execute(DeliverySchema.schemaSql());
        }
    }
}
