package dev.retrysafe.sdk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.retrysafe.client.RetryingHttpClient;
import dev.retrysafe.client.testing.FakeSleeper;
import dev.retrysafe.client.testing.ScriptedServer;
import dev.retrysafe.client.testing.ScriptedServer.Answer;
import dev.retrysafe.client.testing.ScriptedServer.Received;
import dev.retrysafe.testkit.FakeClock;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * Webhook delivery v2 in the typed client, against a fake of the API on 127.0.0.1: custom headers
 * sent on create and change (the wire JSON exactly) and read back by name only, ordering, pausing's
 * status, events' ordering keys. A header's value never shows in a {@code toString()} or an
 * exception's message.
 */
class WebhookEndpointHeadersTest {

    private static final String KEY = "rs_test_0123456789abcdef";
    /** A value that must never show anywhere but in the request body. */
    private static final String VALUE = "k3y-v4lue-never-shown";

    private static final String ENDPOINT = """
            {"id":"we_01","object":"webhook_endpoint","url":"https://example.com/hooks","description":"shop",\
            "event_types":["payment.*"],"enabled":true,"disabled_reason":null,"status":"enabled",\
            "created_at":"2026-01-01T10:00:00Z","updated_at":"2026-01-01T10:00:00Z","failing_since":null,\
            "previous_secret_expires_at":null,"rate_limit":5,"paused_at":null,"ordered":true,\
            "header_names":%s""";

    private final FakeClock clock = new FakeClock();

    @Test
    void anEndpointIsCreatedWithHeadersOrderedAndARateLimitAndReadBackWithTheirNamesOnly() throws Exception {
        String created = ENDPOINT.formatted("[\"X-Api-Key\",\"X-Tenant\"]") + ",\"secret\":\"whsec_c2VjcmV0\"}";
        try (ScriptedServer server = api(r -> switch (r.method() + " " + r.path()) {
                    case "POST /v1/webhook_endpoints" -> Answer.withBody(201, created);
                    case "GET /v1/webhook_endpoints/we_01" ->
                        Answer.withBody(200, ENDPOINT.formatted("[\"X-Api-Key\",\"X-Tenant\"]") + "}");
                    default -> Answer.of(404);
                });
                RetrysafeClient api = client(server)) {
            // given headers in an order the server will not keep
            Map<String, String> headers = new LinkedHashMap<>();
            headers.put("X-Tenant", "acme");
            headers.put("X-Api-Key", VALUE);
            NewWebhookEndpoint registration = NewWebhookEndpoint.builder(
                            "https://example.com/hooks", List.of("payment.*"))
                    .description("shop")
                    .rateLimit(5)
                    .ordered(true)
                    .headers(headers)
                    .build();

            // when
            CreatedWebhookEndpoint answer = api.createWebhookEndpoint(registration);

            // then the body has every member, the headers with their values
            assertThat(server.received().getFirst().body())
                    .isEqualTo("{\"url\":\"https://example.com/hooks\",\"event_types\":[\"payment.*\"],"
                            + "\"description\":\"shop\",\"rate_limit\":5,\"ordered\":true,"
                            + "\"headers\":{\"X-Tenant\":\"acme\",\"X-Api-Key\":\"" + VALUE + "\"}}");
            WebhookEndpoint endpoint = answer.endpoint();
            assertThat(endpoint.headerNames()).containsExactly("X-Api-Key", "X-Tenant");
            assertThat(endpoint.ordered()).isTrue();
            assertThat(endpoint.rateLimit()).isEqualTo(5);
            assertThat(endpoint.status()).isEqualTo("enabled");
            assertThat(api.getWebhookEndpoint("we_01")).isEqualTo(endpoint);

            // and no toString shows a value
            assertThat(registration.toString())
                    .contains("X-Api-Key", "X-Tenant")
                    .doesNotContain(VALUE, "acme");
            assertThat(List.of(answer.toString(), endpoint.toString()))
                    .allSatisfy(s -> assertThat(s).contains("X-Api-Key").doesNotContain(VALUE, "whsec_"));
        }
    }

    @Test
    void aChangeReplacesOrRemovesTheHeadersAndLeavesThemOutWhenUnset() throws Exception {
        try (ScriptedServer server = api(r -> r.method().equals("PATCH")
                                && r.path().equals("/v1/webhook_endpoints/we_01")
                        ? Answer.withBody(
                                200,
                                ENDPOINT.formatted(r.body().contains("X-Api-Key") ? "[\"X-Api-Key\"]" : "[]") + "}")
                        : Answer.of(404));
                RetrysafeClient api = client(server)) {
            WebhookEndpointUpdate replace = WebhookEndpointUpdate.builder()
                    .headers(Map.of("X-Api-Key", VALUE))
                    .build();
            assertThat(api.updateWebhookEndpoint("we_01", replace).headerNames())
                    .containsExactly("X-Api-Key");
            assertThat(api.updateWebhookEndpoint(
                                    "we_01",
                                    WebhookEndpointUpdate.builder()
                                            .headers(WebhookHeaders.none())
                                            .build())
                            .headerNames())
                    .isEmpty();
            api.updateWebhookEndpoint(
                    "we_01", WebhookEndpointUpdate.builder().headers(Map.of()).build());
            api.updateWebhookEndpoint(
                    "we_01",
                    WebhookEndpointUpdate.builder().description("only this").build());

            assertThat(server.received())
                    .extracting(Received::body)
                    .containsExactly(
                            "{\"headers\":{\"X-Api-Key\":\"" + VALUE + "\"}}",
                            "{\"headers\":{}}",
                            "{\"headers\":{}}",
                            "{\"description\":\"only this\"}");
            assertThat(replace.toString())
                    .isEqualTo("WebhookEndpointUpdate{headers=WebhookHeaders[X-Api-Key=(hidden)]}");
            assertThat(replace)
                    .isEqualTo(WebhookEndpointUpdate.builder()
                            .headers(WebhookHeaders.of(Map.of("X-Api-Key", VALUE)))
                            .build());
        }
    }

    @Test
    void aHeaderTheServerRefusesIsAnApiExceptionNamingItButNeverQuotingItsValue() throws Exception {
        String problem = """
                {"type":"/problems/invalid-request","title":"Invalid request","status":400,\
                "detail":"headers: webhook-id is set by the dispatcher itself"}""";
        try (ScriptedServer server =
                        api(r -> new Answer(400, Map.of("Content-Type", "application/problem+json"), problem, null));
                RetrysafeClient api = client(server)) {
            ApiException e = catchThrowableOfType(
                    ApiException.class,
                    () -> api.createWebhookEndpoint(
                            NewWebhookEndpoint.builder("https://example.com/hooks", List.of("*"))
                                    .headers(Map.of("webhook-id", VALUE))
                                    .build()));

            assertThat(e.status()).isEqualTo(400);
            assertThat(e.getMessage()).contains("webhook-id").doesNotContain(VALUE);
            assertThat(String.valueOf(e.problem())).doesNotContain(VALUE);
            assertThat(e.attempts()).allSatisfy(a -> assertThat(a.toString()).doesNotContain(VALUE));
            assertThat(server.received().getFirst().body()).contains(VALUE);
        }
    }

    @Test
    void badHeadersAreRefusedBeforeAnythingIsSentNamingTheHeaderNeverTheValue() {
        String secret = "s3cret\r\nX-Injected: 1";
        assertThatThrownBy(() -> WebhookHeaders.of(Map.of("X-Api-Key", secret)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("the value of header X-Api-Key must be non-empty text without line breaks or other"
                        + " control characters")
                .message()
                .doesNotContain("s3cret");
        assertThatThrownBy(() -> WebhookHeaders.of(Map.of("X-Api-Key", ""))).hasMessageContaining("X-Api-Key");
        assertThatThrownBy(() -> WebhookHeaders.of(Map.of("X-Api-Key: " + VALUE, VALUE)))
                .as("a name written with its value quotes only the part before the bad character")
                .hasMessage("header name must be an HTTP token (letters, digits and !#$%&'*+-.^_`|~):"
                        + " \"X-Api-Key\" is followed by character U+003A");
        assertThatThrownBy(() -> WebhookHeaders.of(Map.of("", VALUE))).hasMessageEndingWith("it is empty");
        Map<String, String> twice = new LinkedHashMap<>();
        twice.put("X-Api-Key", VALUE);
        twice.put("x-api-key", VALUE + "2");
        assertThatThrownBy(() -> WebhookHeaders.of(twice))
                .hasMessage("header names must differ whatever their case: X-Api-Key and x-api-key");
        assertThatThrownBy(() -> NewWebhookEndpoint.builder("https://example.com/hooks", List.of()))
                .hasMessage("eventTypes must not be empty");
        assertThatThrownBy(() -> NewWebhookEndpoint.builder("https://example.com/hooks", List.of("*"))
                        .rateLimit(0))
                .hasMessage("rateLimit must be positive, was 0");

        WebhookHeaders tab = WebhookHeaders.of(Map.of("X-Sig", "a\tb"));
        assertThat(tab.names()).containsExactly("X-Sig");
        assertThat(tab.value("X-Sig")).isEqualTo("a\tb");
        assertThat(tab).hasToString("WebhookHeaders[X-Sig=(hidden)]");
        assertThat(WebhookHeaders.of(Map.of())).isSameAs(WebhookHeaders.none());
    }

    @Test
    void aPausedOrDisabledEndpointHasThatStatusAndAnOlderServersEndpointHasNoHeaderNames() throws Exception {
        String paused = ENDPOINT.formatted("[]")
                        .replace("\"status\":\"enabled\"", "\"status\":\"paused\"")
                        .replace("\"paused_at\":null", "\"paused_at\":\"2026-01-03T10:00:00Z\"")
                + "}";
        String disabledWhilePaused = paused.replace("\"enabled\":true", "\"enabled\":false")
                .replace("\"status\":\"paused\"", "\"status\":\"disabled\"");
        String older = """
                {"id":"we_01","object":"webhook_endpoint","url":"https://example.com/hooks","description":null,\
                "event_types":["*"],"enabled":true,"disabled_reason":null,"created_at":"2026-01-01T10:00:00Z",\
                "updated_at":"2026-01-01T10:00:00Z","failing_since":null,"previous_secret_expires_at":null,\
                "rate_limit":null}""";
        try (ScriptedServer server = api(r -> switch (r.method() + " " + r.path()) {
                    case "POST /v1/webhook_endpoints/we_01/pause" -> Answer.withBody(200, paused);
                    case "GET /v1/webhook_endpoints/we_01" -> Answer.withBody(200, disabledWhilePaused);
                    case "GET /v1/webhook_endpoints/we_02" -> Answer.withBody(200, older);
                    default -> Answer.of(404);
                });
                RetrysafeClient api = client(server)) {
            WebhookEndpoint p = api.pauseWebhookEndpoint("we_01");
            assertThat(p.status()).isEqualTo("paused");
            assertThat(p.pausedAt()).isEqualTo(Instant.parse("2026-01-03T10:00:00Z"));
            assertThat(api.getWebhookEndpoint("we_01").status())
                    .as("disabled outranks paused")
                    .isEqualTo("disabled");
            WebhookEndpoint o = api.getWebhookEndpoint("we_02");
            assertThat(o.headerNames()).isEmpty();
            assertThat(o.ordered()).isFalse();
            assertThat(o.status()).isEqualTo("enabled");
        }
    }

    @Test
    void anEventReadsItsOrderingKeyAndAnEventWithoutOneHasNull() throws Exception {
        String data = "{\"id\":\"re_01\",\"object\":\"refund\",\"payment_id\":\"pay_01\"}";
        String keyed = "{\"id\":\"evt_01\",\"type\":\"refund.created\",\"timestamp\":\"2026-01-01T10:00:00Z\","
                + "\"ordering_key\":\"pay_01\",\"data\":" + data + "}";
        String unkeyed = "{\"id\":\"evt_02\",\"type\":\"report.completed\",\"timestamp\":\"2026-01-01T10:00:00Z\","
                + "\"data\":{\"id\":\"job_01\"}}";
        try (ScriptedServer server = api(r -> switch (r.path()) {
                    case "/v1/events/evt_01" -> Answer.withBody(200, keyed);
                    case "/v1/events/evt_02" -> Answer.withBody(200, unkeyed);
                    default -> Answer.of(404);
                });
                RetrysafeClient api = client(server)) {
            Event event = api.getEvent("evt_01");
            assertThat(event.orderingKey()).isEqualTo("pay_01");
            assertThat(event.objectId()).isEqualTo("re_01");
            assertThat(api.getEvent("evt_02").orderingKey()).isNull();
            assertThat(new Event("evt_02", "report.completed", Instant.parse("2026-01-01T10:00:00Z"), Map.of()))
                    .extracting(Event::orderingKey)
                    .isNull();
        }
    }

    private RetrysafeClient client(ScriptedServer server) {
        RetryingHttpClient http = RetryingHttpClient.builder()
                .clock(clock)
                .sleeper(new FakeSleeper(clock))
                .build();
        return RetrysafeClient.builder()
                .baseUri(server.uri("/"))
                .apiKey(KEY)
                .http(http)
                .build();
    }

    private static ScriptedServer api(Function<Received, Answer> routes) {
        return ScriptedServer.routing(r -> ("Bearer " + KEY).equals(r.header("Authorization"))
                ? routes.apply(r)
                : new Answer(401, Map.of("WWW-Authenticate", "Bearer"), "", null));
    }
}
