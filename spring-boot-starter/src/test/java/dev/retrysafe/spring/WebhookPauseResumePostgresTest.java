package dev.retrysafe.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpServer;
import dev.retrysafe.delivery.Delivery;
import dev.retrysafe.delivery.DeliveryStatus;
import dev.retrysafe.delivery.PageRequest;
import dev.retrysafe.delivery.WebhookEndpoints;
import dev.retrysafe.testkit.PostgresTestDatabase;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.transaction.support.TransactionTemplate;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Pause, resume, ordering and a header PATCH through the starter's routes, with the dispatcher
 * sending over real HTTP to a receiver on loopback, on PostgreSQL.
 */
class WebhookPauseResumePostgresTest {

    private static final String ACCOUNT = "acct_pause";

    private static PostgresTestDatabase database;
    private static ConfigurableApplicationContext app;
    private static HttpServer receiver;
    private static ExecutorService receiverThreads;
    private static final List<Received> RECEIVED = new CopyOnWriteArrayList<>();

    /** One request the receiver got. */
    record Received(String path, String apiKey, JsonNode event) {}

    @BeforeAll
    static void start() throws Exception {
        receiverThreads = Executors.newFixedThreadPool(4);
        receiver = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        receiver.setExecutor(receiverThreads);
        receiver.createContext("/", exchange -> {
            try (InputStream in = exchange.getRequestBody()) {
                String body = new String(in.readAllBytes(), StandardCharsets.UTF_8);
                String key = exchange.getRequestHeaders().getFirst("X-Api-Key");
                RECEIVED.add(new Received(
                        exchange.getRequestURI().getPath(),
                        key == null ? "" : key,
                        JsonMapper.shared().readTree(body)));
                exchange.sendResponseHeaders(204, -1);
            } finally {
                exchange.close();
            }
        });
        receiver.start();
        database = PostgresTestDatabase.create(); // the starter creates the tables
        app = new SpringApplicationBuilder(App.class)
                .properties(
                        "server.port=0",
                        "spring.datasource.url=" + database.jdbcUrl(),
                        "spring.datasource.username=" + database.user(),
                        "retrysafe.webhooks.out.account=" + ACCOUNT,
                        "retrysafe.webhooks.out.routes.enabled=true",
                        "retrysafe.webhooks.out.dispatcher.poll-interval=50ms",
                        "retrysafe.webhooks.out.ssrf.allow-private-targets=127.0.0.0/8,::1/128",
                        "retrysafe.webhooks.out.ssrf.require-https=false",
                        "retrysafe.jobs.enabled=false")
                .run();
    }

    @AfterAll
    static void stop() {
        if (app != null) {
            app.close();
        }
        if (receiver != null) {
            receiver.stop(0);
        }
        if (receiverThreads != null) {
            receiverThreads.shutdownNow();
        }
        if (database != null) {
            database.close();
        }
    }

    @Test
    void aPausedOrderedEndpointGetsNothingUntilResumedThenEverythingInCommitOrderWithThePatchedHeader()
            throws Exception {
        String base = "http://127.0.0.1:" + receiver.getAddress().getPort();
        HttpResponse<String> created = send("POST", "/v1/webhook_endpoints", """
                {"url":"%s/paused","event_types":["order.*"],"ordered":true,"headers":{"X-Api-Key":"key-before"}}""".formatted(base));
        assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
        String paused = created.headers().firstValue("Location").orElseThrow();
        String pausedId = paused.substring(paused.lastIndexOf('/') + 1);
        assertThat(send("POST", "/v1/webhook_endpoints", """
                        {"url":"%s/control","event_types":["control.ping"]}""".formatted(base)).statusCode())
                .isEqualTo(201);

        assertThat(send("PATCH", paused, """
                        {"headers":{"X-Api-Key":"key-after"}}""").body())
                .contains("\"header_names\":[\"X-Api-Key\"]")
                .doesNotContain("key-after");
        assertThat(send("POST", paused + "/pause", null).body()).contains("\"status\":\"paused\"");

        // given: five events of one key, each committed in a transaction of its own, while paused
        WebhookPublisher publisher = app.getBean(WebhookPublisher.class);
        TransactionTemplate tx = app.getBean(TransactionTemplate.class);
        List<String> committed = new ArrayList<>();
        for (int i = 1; i <= 5; i++) {
            int n = i;
            committed.add(tx.execute(status -> publisher.publishOrdered("ord_1", "order.updated", Map.of("n", n))));
        }
        // a later event to an endpoint that is not paused: once it arrived, the dispatcher has
        // claimed past the paused endpoint's deliveries, which were committed before it
        tx.execute(status -> publisher.publish("control.ping", Map.of("n", 0)));
        await().atMost(Duration.ofSeconds(20))
                .until(() -> RECEIVED.stream().anyMatch(r -> r.path().equals("/control")));

        // then: the paused endpoint got nothing, and its deliveries wait unscheduled
        assertThat(RECEIVED).noneMatch(r -> r.path().equals("/paused"));
        WebhookEndpoints endpoints = app.getBean(WebhookEndpoints.class);
        List<Delivery> held = endpoints
                .deliveries(ACCOUNT, pausedId, PageRequest.first(10))
                .orElseThrow()
                .items();
        assertThat(held).hasSize(5).allSatisfy(d -> {
            assertThat(d.status()).isEqualTo(DeliveryStatus.PENDING);
            assertThat(d.attempts()).isZero();
        });

        // when
        HttpResponse<String> resumed = send("POST", paused + "/resume", null);
        assertThat(resumed.body()).contains("\"status\":\"enabled\"").contains("\"paused_at\":null");

        // then: all five, in commit order, each with the header as patched
        await().atMost(Duration.ofSeconds(20))
                .until(() -> RECEIVED.stream()
                                .filter(r -> r.path().equals("/paused"))
                                .count()
                        == 5);
        List<Received> got =
                RECEIVED.stream().filter(r -> r.path().equals("/paused")).toList();
        assertThat(got.stream().map(r -> r.event().get("id").asString())).containsExactlyElementsOf(committed);
        assertThat(got.stream().map(r -> r.event().get("data").get("n").asInt()))
                .containsExactly(1, 2, 3, 4, 5);
        assertThat(got).allSatisfy(r -> {
            assertThat(r.apiKey()).isEqualTo("key-after");
            assertThat(r.event().get("ordering_key").asString()).isEqualTo("ord_1");
        });
    }

    private static HttpResponse<String> send(String method, String path, String body) throws Exception {
        int port = app.getEnvironment().getRequiredProperty("local.server.port", Integer.class);
        try (HttpClient http = HttpClient.newHttpClient()) {
            HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                    .header("Content-Type", "application/json")
                    .method(
                            method,
                            body == null
                                    ? HttpRequest.BodyPublishers.noBody()
                                    : HttpRequest.BodyPublishers.ofString(body));
            return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class App {}
}
