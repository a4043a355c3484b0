package dev.retrysafe.acceptance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.retrysafe.server.Api;
import dev.retrysafe.server.TestServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The seed's webhook run over real HTTP: a server whose dispatcher delivers to a receiver on
 * 127.0.0.1 (allowed by {@code allow_private_targets}, plain http allowed) that verifies every
 * delivery with the {@code webhooks} module and de-duplicates by {@code webhook-id}. The retry
 * schedule is compressed to milliseconds and has no jitter; every wait is on an observable state
 * with a deadline.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class WebhookDeliveryTest {

    private static final Duration DEADLINE = Duration.ofSeconds(30);
    private static final List<Duration> FAST_SCHEDULE = List.of(
            Duration.ZERO,
            Duration.ofMillis(200),
            Duration.ofMillis(200),
            Duration.ofMillis(200),
            Duration.ofMillis(200));
    private static final ObjectMapper JSON = new ObjectMapper();

    private final List<AutoCloseable> open = new ArrayList<>();
    private WebhookReceiver receiver;
    private TestServer server;
    private Api api;

    @BeforeEach
    void start() throws Exception {
        receiver = WebhookReceiver.start();
        open.add(receiver);
        server = TestServer.h2().loopbackWebhooks(FAST_SCHEDULE).start();
        open.add(server);
        api = Api.of(server);
    }

    @AfterEach
    void stop() throws Exception {
        for (AutoCloseable c : open.reversed()) {
            c.close();
        }
    }

    private JsonNode createEndpoint(String... types) {
        String list = String.join(
                ",", java.util.Arrays.stream(types).map(t -> "\"" + t + "\"").toList());
        Api.Answer a = api.post(
                "/v1/webhook_endpoints",
                "{\"url\": \"" + receiver.url() + "\", \"event_types\": [" + list + "], \"description\": \"shop\"}");
        assertThat(a.status()).as(a.raw().body()).isEqualTo(201);
        return a.body();
    }

    private JsonNode pay(long amount) {
        Api.Answer a = api.post("/v1/payments", "{\"amount\": " + amount + ", \"currency\": \"eur\"}");
        assertThat(a.status()).as(a.raw().body()).isEqualTo(201);
        return a.body();
    }

    /** The one delivery of the endpoint, once it has finished (succeeded or failed). */
    private JsonNode awaitFinishedDelivery(String endpointId) {
        return await().atMost(DEADLINE)
                .pollInterval(Duration.ofMillis(20))
                .until(
                        () -> {
                            JsonNode page = api.get("/v1/webhook_endpoints/" + endpointId + "/deliveries")
                                    .body();
                            if (page.get("data").isEmpty()) {
                                return null;
                            }
                            JsonNode d = page.get("data").get(0);
                            String status = d.get("status").asText();
                            return status.equals("succeeded") || status.equals("failed") ? d : null;
                        },
                        d -> d != null);
    }

    private static List<Integer> statusCodes(JsonNode detail) {
        List<Integer> codes = new ArrayList<>();
        for (JsonNode attempt : detail.get("attempts")) {
            codes.add(
                    attempt.get("status_code").isNull()
                            ? null
                            : attempt.get("status_code").asInt());
        }
        return codes;
    }

    @Test
    void twoCrashesThenSuccessOnTheThirdAttemptWithTheEventAsGetEventsShowsIt() throws Exception {
        // given
        JsonNode endpoint = createEndpoint("payment.succeeded");
        receiver.trust(endpoint.get("secret").asText());
        receiver.script(WebhookReceiver.Step.CRASH, WebhookReceiver.Step.CRASH);

        // when
        JsonNode payment = pay(500);

        // then
        JsonNode delivery = awaitFinishedDelivery(endpoint.get("id").asText());
        assertThat(delivery.get("status").asText()).isEqualTo("succeeded");
        JsonNode detail =
                api.get("/v1/deliveries/" + delivery.get("id").asText()).body();
        assertThat(detail.get("attempt_count").asInt()).isEqualTo(3);
        assertThat(statusCodes(detail)).containsExactly(500, 500, 200);
        assertThat(detail.get("attempts").get(0).get("outcome").asText()).isEqualTo("http_error");
        assertThat(detail.get("attempts").get(2).get("outcome").asText()).isEqualTo("success");

        assertThat(receiver.handled()).hasSize(1);
        assertThat(receiver.rejected()).isZero();
        JsonNode received = JSON.readTree(receiver.handled().getFirst());
        assertThat(received.get("type").asText()).isEqualTo("payment.succeeded");
        assertThat(received.get("data").get("id").asText())
                .isEqualTo(payment.get("id").asText());
        assertThat(received.get("data").get("amount").asLong()).isEqualTo(500);
        // the payload is the event exactly as the events API shows it
        Api.Answer event = api.get("/v1/events/" + received.get("id").asText());
        assertThat(event.status()).isEqualTo(200);
        assertThat(event.body()).isEqualTo(received);
        assertThat(detail.get("payload")).isEqualTo(received);
        assertThat(api.get("/v1/events?type=payment.succeeded")
                        .body()
                        .get("data")
                        .get(0))
                .isEqualTo(received);

        // a delivery that succeeded is sent again on request (a replay); the receiver's
        // deduplication by webhook-id recognises it, so its effect happens once
        String deliveryUri = "/v1/deliveries/" + delivery.get("id").asText();
        Api.Answer retry = api.post(deliveryUri + "/retry", "");
        assertThat(retry.status()).as(retry.raw().body()).isEqualTo(202);
        await().atMost(DEADLINE).pollInterval(Duration.ofMillis(20)).until(() -> {
            JsonNode d = api.get(deliveryUri).body();
            return d.get("attempt_count").asInt() == 4
                    && d.get("status").asText().equals("succeeded");
        });
        assertThat(statusCodes(api.get(deliveryUri).body())).containsExactly(500, 500, 200, 200);
        assertThat(receiver.duplicates()).isEqualTo(1);
        assertThat(receiver.handled()).hasSize(1);

        // the run shows in the metrics: two failed attempts, two successes, one first-attempt latency
        Api.Answer metrics = new Api(server.baseUri(), null).get("/metrics");
        assertThat(metrics.status()).isEqualTo(200);
        assertThat(metrics.contentType()).startsWith("text/plain; version=0.0.4");
        assertThat(metrics.raw().body().lines())
                .contains(
                        "retrysafe_webhook_attempts_total{outcome=\"http_error\"} 2",
                        "retrysafe_webhook_attempts_total{outcome=\"success\"} 2",
                        "retrysafe_webhook_deliveries_total{status=\"succeeded\"} 2",
                        "retrysafe_webhook_first_attempt_latency_seconds_bucket{le=\"+Inf\"} 1",
                        "retrysafe_webhook_first_attempt_latency_seconds_count 1",
                        "retrysafe_webhook_queue_depth{state=\"due\"} 0");
    }

    @Test
    void aSecondDeliveryOfTheSameIdAfterALostAnswerIsAcknowledgedAndSkipped() {
        // given: the receiver crashes twice, then handles the event but fails before acknowledging it
        JsonNode endpoint = createEndpoint("*");
        receiver.trust(endpoint.get("secret").asText());
        receiver.script(WebhookReceiver.Step.CRASH, WebhookReceiver.Step.CRASH, WebhookReceiver.Step.HANDLE_THEN_FAIL);

        // when
        pay(700);

        // then: the sender retried, the receiver recognised the id
        JsonNode delivery = awaitFinishedDelivery(endpoint.get("id").asText());
        assertThat(delivery.get("status").asText()).isEqualTo("succeeded");
        JsonNode detail =
                api.get("/v1/deliveries/" + delivery.get("id").asText()).body();
        assertThat(statusCodes(detail)).containsExactly(500, 500, 500, 200);
        assertThat(receiver.duplicates()).isEqualTo(1);
        assertThat(receiver.handled()).as("handled events").hasSize(1);
    }

    @Test
    void aFailedDeliveryIsSentAgainByRetry() {
        // given: the receiver crashes on every scheduled attempt, so the delivery fails
        JsonNode endpoint = createEndpoint("payment.succeeded");
        String endpointId = endpoint.get("id").asText();
        receiver.trust(endpoint.get("secret").asText());
        WebhookReceiver.Step[] crashes = new WebhookReceiver.Step[FAST_SCHEDULE.size()];
        java.util.Arrays.fill(crashes, WebhookReceiver.Step.CRASH);
        receiver.script(crashes);
        pay(900);
        JsonNode failed = awaitFinishedDelivery(endpointId);
        assertThat(failed.get("status").asText()).isEqualTo("failed");
        assertThat(failed.get("attempt_count").asInt()).isEqualTo(FAST_SCHEDULE.size());
        assertThat(receiver.handled()).isEmpty();

        // when
        Api.Answer retry = api.post("/v1/deliveries/" + failed.get("id").asText() + "/retry", "");

        // then
        assertThat(retry.status()).as(retry.raw().body()).isEqualTo(202);
        JsonNode delivered = awaitFinishedDelivery(endpointId);
        assertThat(delivered.get("status").asText()).isEqualTo("succeeded");
        assertThat(receiver.handled()).hasSize(1);
    }

    @Test
    void aGoneAnswerDisablesTheEndpointAndEmitsTheDisabledEvent() {
        // given
        JsonNode endpoint = createEndpoint("payment.succeeded");
        String endpointId = endpoint.get("id").asText();
        receiver.trust(endpoint.get("secret").asText());
        receiver.script(WebhookReceiver.Step.GONE);

        // when
        pay(300);

        // then
        JsonNode failed = awaitFinishedDelivery(endpointId);
        assertThat(failed.get("status").asText()).isEqualTo("failed");
        JsonNode disabled = api.get("/v1/webhook_endpoints/" + endpointId).body();
        assertThat(disabled.get("enabled").asBoolean()).isFalse();
        assertThat(disabled.get("disabled_reason").asText()).isEqualTo("gone");
        JsonNode events =
                api.get("/v1/events?type=webhook_endpoint.disabled").body().get("data");
        assertThat(events).hasSize(1);
        assertThat(events.get(0).get("data").get("id").asText()).isEqualTo(endpointId);
        assertThat(events.get(0).get("data").get("disabled_reason").asText()).isEqualTo("gone");
        assertThat(api.get("/v1/events/" + events.get(0).get("id").asText()).body())
                .isEqualTo(events.get(0));

        // and enabling it again, then retrying, delivers the event
        assertThat(api.post("/v1/webhook_endpoints/" + endpointId + "/enable", "")
                        .status())
                .isEqualTo(200);
        assertThat(api.post("/v1/deliveries/" + failed.get("id").asText() + "/retry", "")
                        .status())
                .isEqualTo(202);
        assertThat(awaitFinishedDelivery(endpointId).get("status").asText()).isEqualTo("succeeded");
        assertThat(receiver.handled()).hasSize(1);
    }

    @Test
    void aPaymentWhoseTransactionFailsEmitsNoEventAndNoDelivery() throws Exception {
        try (TestServer failing =
                TestServer.h2().errorRate(1.0).loopbackWebhooks(FAST_SCHEDULE).start()) {
            Api client = Api.of(failing);
            Api.Answer created = client.post(
                    "/v1/webhook_endpoints", "{\"url\": \"" + receiver.url() + "\", \"event_types\": [\"*\"]}");
            assertThat(created.status()).isEqualTo(201);

            Api.Answer payment = client.post("/v1/payments", "{\"amount\": 500, \"currency\": \"eur\"}");

            assertThat(payment.status()).isEqualTo(503);
            assertThat(client.get("/v1/events").body().get("data")).isEmpty();
            assertThat(client.get("/v1/webhook_endpoints/"
                                    + created.body().get("id").asText() + "/deliveries")
                            .body()
                            .get("data"))
                    .isEmpty();
            assertThat(receiver.requests()).isZero();
        }
    }

    @Test
    void duringARotationsGracePeriodReceiversHoldingEitherSecretVerify() {
        // given
        JsonNode endpoint = createEndpoint("payment.succeeded");
        String oldSecret = endpoint.get("secret").asText();
        Api.Answer rotated =
                api.post("/v1/webhook_endpoints/" + endpoint.get("id").asText() + "/rotate_secret", "");
        assertThat(rotated.status()).isEqualTo(200);
        String newSecret = rotated.body().get("secret").asText();

        // when: a receiver that still only knows the old secret
        receiver.trust(oldSecret);
        pay(100);
        JsonNode first = awaitFinishedDelivery(endpoint.get("id").asText());

        // then
        assertThat(first.get("status").asText()).isEqualTo("succeeded");
        assertThat(receiver.rejected()).isZero();

        // and one that only knows the new secret
        receiver.trust(newSecret);
        pay(200);
        await().atMost(DEADLINE).until(() -> receiver.handled().size() == 2);
        assertThat(receiver.rejected()).isZero();
    }
}
