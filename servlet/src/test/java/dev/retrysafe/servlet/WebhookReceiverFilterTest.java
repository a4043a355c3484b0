package dev.retrysafe.servlet;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.retrysafe.testkit.FakeClock;
import dev.retrysafe.webhooks.InMemoryWebhookDeduplicator;
import dev.retrysafe.webhooks.VerifiedWebhook;
import dev.retrysafe.webhooks.WebhookSecret;
import dev.retrysafe.webhooks.WebhookSigner;
import dev.retrysafe.webhooks.WebhookVerifier;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The receiver filter over real HTTP: verify before parsing, run each webhook-id once, retry after failure. */
class WebhookReceiverFilterTest {

    private static final String EVENT = "{\"type\":\"payment.succeeded\",\"data\":{\"id\":\"pay_1\",\"amount\":500}}";

    private final FakeClock clock = new FakeClock();
    private final WebhookSecret secret = WebhookSecret.generate();
    private final WebhookSigner signer = WebhookSigner.of(secret);
    private final List<String> handled = new CopyOnWriteArrayList<>();
    private volatile int handlerStatus = 204;
    private TestServer server;
    private HttpClient http;

    /** The application: records the verified id and the body it reads itself, answers handlerStatus. */
    private final class Receiver extends HttpServlet {
        private static final long serialVersionUID = 1L;

        @Override
        protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
            VerifiedWebhook webhook = WebhookReceiverFilter.webhookOf(request);
            String body = new String(request.getInputStream().readAllBytes(), UTF_8);
            handled.add(webhook == null ? "unverified" : webhook.id() + " " + body);
            response.setStatus(handlerStatus);
        }
    }

    @BeforeEach
    void start() throws Exception {
        WebhookReceiverFilter filter = WebhookReceiverFilter.builder()
                .verifier(WebhookVerifier.builder().secret(secret).clock(clock).build())
                .deduplicator(InMemoryWebhookDeduplicator.builder().clock(clock).build())
                .maxBodyBytes(4096)
                .build();
        server = new TestServer(filter, new Receiver());
        http = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5))
                .build();
    }

    @AfterEach
    void stop() {
        http.close();
        server.close();
    }

    private HttpResponse<String> deliver(
            String id, long timestamp, String signedBody, String sentBody, @Nullable String signature)
            throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(server.uri("/hooks"))
                .header("Content-Type", "application/json")
                .header("webhook-id", id)
                .header("webhook-timestamp", Long.toString(timestamp))
                .POST(HttpRequest.BodyPublishers.ofString(sentBody));
        String value = signature != null ? signature : signer.sign(id, timestamp, signedBody.getBytes(UTF_8));
        request.header("webhook-signature", value);
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString(UTF_8));
    }

    private HttpResponse<String> deliver(String id) throws Exception {
        return deliver(id, clock.instant().getEpochSecond(), EVENT, EVENT, null);
    }

    @Test
    void aVerifiedDeliveryReachesTheApplicationWithItsExactBodyAndItsDuplicatesDoNot() throws Exception {
        HttpResponse<String> first = deliver("msg_1");
        HttpResponse<String> again = deliver("msg_1");

        assertThat(first.statusCode()).isEqualTo(204);
        assertThat(again.statusCode()).isEqualTo(200);
        assertThat(again.body()).isEqualTo("{\"duplicate\":true}");
        assertThat(handled).containsExactly("msg_1 " + EVENT);
    }

    @Test
    void aTamperedBodyIsRejectedBeforeTheApplicationSeesIt() throws Exception {
        String tampered = EVENT.replace("500", "50000");
        HttpResponse<String> answer = deliver("msg_2", clock.instant().getEpochSecond(), EVENT, tampered, null);

        assertThat(answer.statusCode()).isEqualTo(400);
        assertThat(answer.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(answer.body())
                .contains("\"type\":\"/problems/webhook-rejected\"", "\"reason\":\"no_matching_signature\"");
        assertThat(handled).isEmpty();
        assertThat(deliver("msg_2").statusCode())
                .as("a rejected id is not remembered")
                .isEqualTo(204);
    }

    @Test
    void oldMissingAndMalformedHeadersAreRejectedWithTheirReason() throws Exception {
        long anHourAgo = clock.instant().getEpochSecond() - 3600;
        assertThat(deliver("msg_3", anHourAgo, EVENT, EVENT, null).body()).contains("\"reason\":\"timestamp_too_old\"");
        assertThat(deliver("msg_4", clock.instant().getEpochSecond(), EVENT, EVENT, "v1,")
                        .body())
                .contains("\"reason\":\"malformed_signature\"");
        HttpResponse<String> unsigned = http.send(
                HttpRequest.newBuilder(server.uri("/hooks"))
                        .POST(HttpRequest.BodyPublishers.ofString(EVENT))
                        .build(),
                HttpResponse.BodyHandlers.ofString(UTF_8));
        assertThat(unsigned.statusCode()).isEqualTo(400);
        assertThat(unsigned.body()).contains("\"reason\":\"missing_header\"");
        assertThat(handled).isEmpty();
    }

    @Test
    void aFailedHandlerForgetsTheIdSoTheSendersRetryRunsItAgain() throws Exception {
        handlerStatus = 500;
        assertThat(deliver("msg_5").statusCode()).isEqualTo(500);
        handlerStatus = 200;
        assertThat(deliver("msg_5").statusCode()).isEqualTo(200);
        assertThat(deliver("msg_5").body()).isEqualTo("{\"duplicate\":true}");

        assertThat(handled).containsExactly("msg_5 " + EVENT, "msg_5 " + EVENT);
    }

    @Test
    void anOversizedBodyIs413AndRunsNothing() throws Exception {
        String big = "{\"pad\":\"" + "x".repeat(5000) + "\"}";
        HttpResponse<String> answer = deliver("msg_6", clock.instant().getEpochSecond(), big, big, null);

        assertThat(answer.statusCode()).isEqualTo(413);
        assertThat(handled).isEmpty();
    }
}
