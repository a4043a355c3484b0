package dev.retrysafe.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.retrysafe.delivery.DeliveryDetail;
import dev.retrysafe.delivery.DeliveryStatus;
import dev.retrysafe.delivery.EndpointWithSecret;
import dev.retrysafe.delivery.NewEndpoint;
import dev.retrysafe.delivery.PageRequest;
import dev.retrysafe.delivery.RetryOutcome;
import dev.retrysafe.delivery.WebhookEndpoints;
import dev.retrysafe.testkit.PostgresTestDatabase;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.transaction.IllegalTransactionStateException;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Two Spring Boot applications on real ports: a sender on PostgreSQL that publishes through the
 * starter's outbox in its own Spring transactions, and a receiver on H2 whose
 * {@code @WebhookListener} gets what the sender's dispatcher delivers, verified and de-duplicated.
 */
class WebhooksRoundTripPostgresTest {

    private static final String ACCOUNT = "acct_roundtrip";

    private static PostgresTestDatabase database;
    private static ConfigurableApplicationContext sender;
    private static ConfigurableApplicationContext receiver;
    private static int senderPort;
    private static String endpointId;

    @BeforeAll
    static void start() throws Exception {
        database = PostgresTestDatabase.create(); // the sender's starter creates the tables
        sender = new SpringApplicationBuilder(SenderApp.class)
                .properties(
                        "server.port=0",
                        "spring.datasource.url=" + database.jdbcUrl(),
                        "spring.datasource.username=" + database.user(),
                        "retrysafe.webhooks.out.account=" + ACCOUNT,
                        "retrysafe.webhooks.out.dispatcher.poll-interval=50ms",
                        // the guard's documented allowance for a receiver on this machine
                        "retrysafe.webhooks.out.ssrf.allow-private-targets=127.0.0.0/8,::1/128",
                        "retrysafe.webhooks.out.ssrf.require-https=false",
                        "management.endpoints.web.exposure.include=prometheus")
                .run();
        senderPort = sender.getEnvironment().getRequiredProperty("local.server.port", Integer.class);
        int receiverPort = freePort();
        EndpointWithSecret endpoint = sender.getBean(WebhookEndpointService.class)
                .create(
                        ACCOUNT,
                        new NewEndpoint(
                                URI.create("http://127.0.0.1:" + receiverPort + "/hooks/in"),
                                Set.of("payment.succeeded"),
                                "the receiver app"));
        endpointId = endpoint.endpoint().id();
        receiver = new SpringApplicationBuilder(ReceiverApp.class)
                .properties(
                        "server.port=" + receiverPort,
                        "spring.datasource.url=" + TestSchemas.newH2(),
                        "retrysafe.webhooks.in.path=/hooks/in",
                        "retrysafe.webhooks.in.secrets=" + endpoint.secret().encoded(),
                        "retrysafe.webhooks.out.enabled=false",
                        "retrysafe.jobs.enabled=false")
                .run();
    }

    @AfterAll
    static void stop() {
        if (receiver != null) {
            receiver.close();
        }
        if (sender != null) {
            sender.close();
        }
        if (database != null) {
            database.close();
        }
    }

    @Test
    void rolledBackIsNeverDeliveredCommittedIsDeliveredOnceEvenWhenPostedTwice() throws Exception {
        WebhookPublisher publisher = sender.getBean(WebhookPublisher.class);
        TransactionTemplate tx = sender.getBean(TransactionTemplate.class);
        WebhookEndpoints endpoints = sender.getBean(WebhookEndpoints.class);
        Received received = receiver.getBean(Received.class);

        String rolledBack = tx.execute(status -> {
            String id = publisher.publish("payment.succeeded", Map.of("payment", "pay_lost"));
            status.setRollbackOnly();
            return id;
        });
        String committed = tx.execute(status -> publisher.publish("payment.succeeded", Map.of("payment", "pay_1")));

        await().atMost(Duration.ofSeconds(20)).until(() -> received.events.size() == 1);
        PaymentEvent event = received.events.get(0);
        assertThat(event.id()).isEqualTo(committed);
        assertThat(event.type()).isEqualTo("payment.succeeded");
        assertThat(event.data()).containsEntry("payment", "pay_1");
        assertThat(endpoints
                        .eventDeliveries(ACCOUNT, rolledBack, PageRequest.first(10))
                        .items())
                .as("a rolled-back publish leaves no delivery")
                .isEmpty();

        // the sender posts the same delivery again (same webhook-id, new signature)
        String deliveryId = endpoints
                .eventDeliveries(ACCOUNT, committed, PageRequest.first(10))
                .items()
                .get(0)
                .id();
        await().atMost(Duration.ofSeconds(20))
                .until(() -> endpoints
                        .delivery(ACCOUNT, deliveryId)
                        .map(d -> d.delivery().status() == DeliveryStatus.SUCCEEDED)
                        .orElse(false));
        assertThat(endpoints.retry(ACCOUNT, deliveryId)).isInstanceOf(RetryOutcome.Retried.class);
        await().atMost(Duration.ofSeconds(20))
                .until(() -> endpoints
                                .delivery(ACCOUNT, deliveryId)
                                .map(DeliveryDetail::attempts)
                                .map(List::size)
                                .orElse(0)
                        == 2);
        DeliveryDetail detail = endpoints.delivery(ACCOUNT, deliveryId).orElseThrow();
        assertThat(detail.attempts()).allSatisfy(a -> assertThat(a.statusCode()).isBetween(200, 299));
        assertThat(received.events).as("the listener ran once for two posts").hasSize(1);
        assertThat(received.events.stream().map(PaymentEvent::id)).doesNotContain(rolledBack);

        String scrape = get("/actuator/prometheus");
        assertThat(scrape)
                .contains("retrysafe_webhook_attempts_total{outcome=\"success\"} 2")
                .contains("retrysafe_webhook_deliveries_total{status=\"succeeded\"}")
                .contains("retrysafe_webhook_queue_depth{state=\"due\"}")
                .contains("retrysafe_webhook_first_attempt_latency_seconds_count")
                .contains("retrysafe_jobs_queued");
    }

    @Test
    void publishOutsideATransactionRefuses() {
        WebhookPublisher publisher = sender.getBean(WebhookPublisher.class);
        assertThatThrownBy(() -> publisher.publish("payment.succeeded", Map.of("payment", "pay_2")))
                .isInstanceOf(IllegalTransactionStateException.class)
                .hasMessageContaining("needs a Spring transaction");
    }

    @Test
    void endpointUrlsToInternalAddressesAreRefusedUnlessAllowed() {
        WebhookEndpointService service = sender.getBean(WebhookEndpointService.class);
        assertThatThrownBy(() -> service.create(
                        ACCOUNT, new NewEndpoint(URI.create("http://169.254.169.254/latest"), Set.of("*"), "metadata")))
                .isInstanceOf(WebhookTargetRefusedException.class);
    }

    private static String get(String path) throws IOException, InterruptedException {
        try (HttpClient http = HttpClient.newHttpClient()) {
            HttpResponse<String> response = http.send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + senderPort + path))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(response.statusCode()).isEqualTo(200);
            return response.body();
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    /** The event as the receiver reads it. */
    record PaymentEvent(String id, String type, String timestamp, Map<String, Object> data) {}

    /** What the receiver's listener got. */
    static final class Received {
        final List<PaymentEvent> events = new CopyOnWriteArrayList<>();

        @WebhookListener(types = "payment.succeeded")
        void paid(PaymentEvent event) {
            events.add(event);
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class SenderApp {}

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class ReceiverApp {
        @Bean
        Received received() {
            return new Received();
        }
    }
}
