package dev.retrysafe.server.cli;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.retrysafe.webhooks.WebhookSecret;
import dev.retrysafe.webhooks.WebhookSigner;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@code webhooks listen}: a real receiver on loopback, fed signed and forged deliveries. */
class WebhookListenerTest {

    private static final WebhookSecret SECRET = WebhookSecret.generate();
    private static final String BODY = "{\"id\":\"evt_1\",\"type\":\"payment.succeeded\",\"data\":{}}";

    private final ByteArrayOutputStream printed = new ByteArrayOutputStream();
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private WebhookListener listener;

    @BeforeEach
    void start() throws Exception {
        listener = WebhookListener.start(0, List.of(SECRET), new PrintStream(printed, true, UTF_8), Clock.systemUTC());
    }

    @AfterEach
    void stop() {
        listener.close();
        http.close();
    }

    @Test
    void verifiesPrintsAndAcknowledgesADeliveryThenSkipsItsRepeat() throws Exception {
        // given
        Map<String, String> headers = signed("msg_1", BODY);

        // when
        int first = post(headers, BODY);
        int repeat = post(headers, BODY);

        // then
        assertThat(first).isEqualTo(204);
        assertThat(repeat).isEqualTo(200);
        assertThat(lines()).containsExactly("msg_1 verified: " + BODY, "msg_1 duplicate");
    }

    @Test
    void rejectsAChangedBodyAndAForeignSecretWithTheReason() throws Exception {
        int changed = post(signed("msg_2", BODY), BODY + " ");
        Map<String, String> foreign = WebhookSigner.of(WebhookSecret.generate())
                .headers("msg_3", Instant.now().getEpochSecond(), BODY.getBytes(UTF_8))
                .toMap();
        int forged = post(foreign, BODY);

        assertThat(changed).isEqualTo(400);
        assertThat(forged).isEqualTo(400);
        assertThat(lines())
                .containsExactly("msg_2 rejected: NO_MATCHING_SIGNATURE", "msg_3 rejected: NO_MATCHING_SIGNATURE");
    }

    @Test
    void printsNoControlCharactersFromStrangers() throws Exception {
        String body = "{\"x\":\"\u001b[31mred\"}";

        assertThat(post(signed("msg_4", body), body)).isEqualTo(204);

        assertThat(lines()).containsExactly("msg_4 verified: {\"x\":\"?[31mred\"}");
    }

    @Test
    void answersOnlyPost() throws Exception {
        HttpResponse<Void> get = http.send(
                HttpRequest.newBuilder(URI.create(listener.url())).GET().build(),
                HttpResponse.BodyHandlers.discarding());

        assertThat(get.statusCode()).isEqualTo(405);
        assertThat(lines()).isEmpty();
    }

    private static Map<String, String> signed(String id, String body) {
        return WebhookSigner.of(SECRET)
                .headers(id, Instant.now().getEpochSecond(), body.getBytes(UTF_8))
                .toMap();
    }

    private int post(Map<String, String> headers, String body) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(listener.url()))
                .timeout(Duration.ofSeconds(10))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body, UTF_8));
        headers.forEach(request::header);
        return http.send(request.build(), HttpResponse.BodyHandlers.discarding())
                .statusCode();
    }

    private List<String> lines() {
        String text = printed.toString(UTF_8);
        return text.isEmpty() ? List.of() : List.of(text.split("\\R"));
    }
}
