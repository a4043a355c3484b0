package dev.retrysafe.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.retrysafe.webhooks.HeaderLookup;
import dev.retrysafe.webhooks.VerifiedWebhook;
import dev.retrysafe.webhooks.WebhookSecret;
import dev.retrysafe.webhooks.WebhookVerifier;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * {@code POST /v1/deliveries/{id}/retry} over real HTTP, with a receiver on 127.0.0.1 (the only
 * place anything is sent): a succeeded delivery is sent again with the same {@code webhook-id},
 * signed afresh; a keyed retry repeated with the same key sends once; a delivery of a disabled
 * endpoint answers {@code 409}. Waits are bounded and wait for states, never for time.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class WebhookEndpointsApiReplayTest {

    private static final Duration WAIT = Duration.ofSeconds(15);

    private LoopbackReceiver receiver;
    private TestServer server;
    private Api api;

    @BeforeAll
    void start() throws Exception {
        receiver = LoopbackReceiver.start();
        server = TestServer.h2()
                .loopbackWebhooks(List.of(Duration.ZERO, Duration.ofMillis(50)))
                .start();
        api = Api.of(server);
    }

    @AfterAll
    void stop() {
        try {
            if (server != null) {
                server.close();
            }
        } finally {
            receiver.close();
        }
    }

    @Test
    void retryOfASucceededDeliveryReplaysItWithTheSameIdAndAKeyedRetrySendsOnce() throws Exception {
        Endpoint endpoint = endpoint();
        String delivery = paidAndDelivered(endpoint);

        Api.Answer replay = api.post("/v1/deliveries/" + delivery + "/retry", "");

        assertThat(replay.status()).as(replay.raw().body()).isEqualTo(202);
        assertThat(replay.body().get("status").asText()).isEqualTo("pending");
        assertThat(replay.body().get("attempt_count").asInt()).isEqualTo(1);
        awaitAttempts(delivery, 2);
        List<LoopbackReceiver.Received> sends = sendsOf(delivery);
        assertThat(sends).hasSize(2);
        WebhookVerifier verifier =
                WebhookVerifier.builder().secret(endpoint.secret()).build();
        for (LoopbackReceiver.Received r : sends) {
            VerifiedWebhook verified = verifier.verify(HeaderLookup.of(r.headers()), r.body());
            assertThat(verified.id()).isEqualTo(delivery);
        }
        assertThat(sends.get(1).body()).isEqualTo(sends.get(0).body());
        JsonNode detail = api.get("/v1/deliveries/" + delivery).body();
        assertThat(detail.get("status").asText()).isEqualTo("succeeded");
        assertThat(detail.get("attempts"))
                .extracting(a -> a.get("number").asInt())
                .containsExactly(1, 2);

        // the same key twice: the second answer is the stored one, and only one more attempt is made
        String key = UUID.randomUUID().toString();
        Api.Answer first = api.post("/v1/deliveries/" + delivery + "/retry", "", key);
        Api.Answer again = api.post("/v1/deliveries/" + delivery + "/retry", "", key);
        assertThat(first.status()).as(first.raw().body()).isEqualTo(202);
        assertThat(again.status()).isEqualTo(202);
        assertThat(again.header("Idempotent-Replayed")).isEqualTo("true");
        awaitAttempts(delivery, 3);
        JsonNode after = api.get("/v1/deliveries/" + delivery).body();
        assertThat(after.get("next_attempt_at").isNull())
                .as("nothing more is due")
                .isTrue();
        assertThat(sendsOf(delivery)).hasSize(3);
    }

    @Test
    void retryOfADeliveryWhoseEndpointIsDisabledAnswers409AndSendsNothing() throws Exception {
        Endpoint endpoint = endpoint();
        String delivery = paidAndDelivered(endpoint);
        Api.Answer disabled = api.send(
                "PATCH",
                "/v1/webhook_endpoints/" + endpoint.id(),
                "application/json",
                "{\"enabled\": false}".getBytes(StandardCharsets.UTF_8));
        assertThat(disabled.status()).isEqualTo(200);

        Api.Answer refused = api.post("/v1/deliveries/" + delivery + "/retry", "");

        assertThat(refused.status()).as(refused.raw().body()).isEqualTo(409);
        assertThat(refused.contentType()).startsWith("application/problem+json");
        JsonNode problem = refused.body();
        assertThat(problem.get("type").asText()).isEqualTo("/problems/delivery-not-retryable");
        assertThat(problem.get("reason").asText()).isEqualTo("endpoint_disabled");
        assertThat(problem.get("endpoint_id").asText()).isEqualTo(endpoint.id());
        assertThat(problem.get("delivery_status").asText()).isEqualTo("succeeded");
        assertThat(problem.get("detail").asText())
                .contains("disabled", "/v1/webhook_endpoints/" + endpoint.id() + "/enable");
        JsonNode detail = api.get("/v1/deliveries/" + delivery).body();
        assertThat(detail.get("status").asText()).isEqualTo("succeeded");
        assertThat(detail.get("next_attempt_at").isNull()).isTrue();
        assertThat(sendsOf(delivery)).hasSize(1);

        Api.Answer other =
                new Api(server.baseUri(), server.otherApiKey()).post("/v1/deliveries/" + delivery + "/retry", "");
        assertThat(other.status()).as("another account's delivery").isEqualTo(404);
    }

    // --- helpers ---------------------------------------------------------------------------

    private record Endpoint(String id, WebhookSecret secret) {}

    /** A new endpoint of the test account at the receiver, for payment events. */
    private Endpoint endpoint() {
        String url = receiver.url("hooks");
        Api.Answer a = api.post(
                "/v1/webhook_endpoints", "{\"url\": \"" + url + "\", \"event_types\": [\"payment.succeeded\"]}");
        assertThat(a.status()).as(a.raw().body()).isEqualTo(201);
        return new Endpoint(
                a.body().get("id").asText(),
                WebhookSecret.parse(a.body().get("secret").asText()));
    }

    /** Makes a payment, waits until its delivery to {@code endpoint} succeeded, returns the delivery id. */
    private String paidAndDelivered(Endpoint endpoint) {
        Api.Answer paid = api.post("/v1/payments", "{\"amount\": 500, \"currency\": \"eur\"}");
        assertThat(paid.status()).as(paid.raw().body()).isEqualTo(201);
        String[] delivery = new String[1];
        await().atMost(WAIT).until(() -> {
            JsonNode page = api.get("/v1/webhook_endpoints/" + endpoint.id() + "/deliveries")
                    .body()
                    .get("data");
            if (page.isEmpty() || !page.get(0).get("status").asText().equals("succeeded")) {
                return false;
            }
            delivery[0] = page.get(0).get("id").asText();
            return true;
        });
        assertThat(sendsOf(delivery[0])).hasSize(1);
        return delivery[0];
    }

    /** Waits until the delivery has {@code n} attempts and is finished again. */
    private void awaitAttempts(String delivery, int n) {
        await().atMost(WAIT).until(() -> {
            JsonNode d = api.get("/v1/deliveries/" + delivery).body();
            return d.get("attempt_count").asInt() == n
                    && d.get("status").asText().equals("succeeded");
        });
    }

    private List<LoopbackReceiver.Received> sendsOf(String delivery) {
        return receiver.received().stream()
                .filter(r -> delivery.equals(r.headers().get("webhook-id")))
                .toList();
    }
}
