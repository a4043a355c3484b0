package dev.retrysafe.server.docs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.LongNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.retrysafe.server.Api;
import dev.retrysafe.server.LoopbackReceiver;
import dev.retrysafe.server.TestServer;
import dev.retrysafe.server.config.RateLimitConfig;
import dev.retrysafe.server.config.ServerConfig;
import dev.retrysafe.testkit.RawHttp;
import java.io.IOException;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.TestInstance;

/**
 * The contract between the OpenAPI document and the running server, driven by the document: every
 * documented operation is sent its documented example (real ids, made first, in place of the
 * example ids; the webhook URLs pointed at a receiver on 127.0.0.1, the only place anything is
 * delivered), and bad variants of it (no key, an unknown id, an invalid query, bodies that are
 * invalid, malformed or of another type). Each answer must have a status the operation documents,
 * a body valid by the schema documented for that status and content type, and the headers marked
 * required. The server's routes and the document's operations must be the same. Rate limits run
 * with the shipped policies (quotas scaled up), so their headers are checked too.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class OpenApiContractTest {

    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final ObjectMapper JSON = new ObjectMapper();
    /** An example id: a prefix of ours and a body. */
    private static final Pattern EXAMPLE_ID = Pattern.compile("^(pay|re|job|evt|we|msg)_[A-Za-z0-9_-]{24,26}$");
    /** Where the examples send webhooks; the test sends them to its receiver instead. */
    private static final String EXAMPLE_WEBHOOK_HOST = "https://example.com/";

    /**
     * Examples whose truthful answer here is a documented refusal, with its status: the test's job
     * has finished (its result is downloaded by another example), so cancelling it answers 409.
     * The example of a WebSocket operation, sent as the plain request it is, answers
     * {@link #UPGRADE_REQUIRED}; its upgrades are sent by {@link #everyWebSocketAnswersItsUpgradesAsDocumented()}.
     */
    private static final Map<String, Integer> REFUSED_EXAMPLES = Map.of("DELETE /v1/jobs/{id}", 409);

    private static final int UPGRADE_REQUIRED = 426;
    /** A key of the right form that no account has. */
    private static final String WRONG_KEY = "rs_not_a_key_of_anyone_0000000000";

    private final Map<String, String> ids = new HashMap<>();
    private LoopbackReceiver receiver;
    private TestServer server;
    private Api api;
    private Api anonymous;
    private Api wrongKey;
    private JsonNode document;
    private Schemas schemas;

    @BeforeAll
    void start() {
        receiver = LoopbackReceiver.start();
        RateLimitConfig shipped = ServerConfig.defaults().rateLimits();
        server = TestServer.h2()
                .loopbackWebhooks(List.of(Duration.ZERO, Duration.ofMillis(50)))
                .rateLimits(shipped.withStore(RateLimitConfig.Store.MEMORY)
                        .withPolicies(shipped.policies().stream()
                                .map(p -> p.scaledBy(1000))
                                .toList()))
                .start();
        api = Api.of(server);
        anonymous = new Api(server.baseUri(), null);
        wrongKey = new Api(server.baseUri(), WRONG_KEY);
        document = anonymous.get("/openapi.json").body();
        schemas = new Schemas(document);
        createResources();
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

    /** One of each resource, so the examples' ids can be replaced by real ones. */
    private void createResources() {
        ids.put(
                "we",
                created(api.post(
                                "/v1/webhook_endpoints",
                                "{\"url\": " + Api.quote(receiver.url("hooks")) + ", \"event_types\": [\"*\"]}"))
                        .get("id")
                        .asText());
        ids.put(
                "pay",
                created(api.post("/v1/payments", "{\"amount\": 1000, \"currency\": \"eur\"}"))
                        .get("id")
                        .asText());
        ids.put(
                "re",
                created(api.post("/v1/refunds", "{\"payment_id\": \"" + ids.get("pay") + "\", \"amount\": 100}"))
                        .get("id")
                        .asText());
        ids.put(
                "job",
                created(api.post("/v1/reports", "{\"kind\": \"payments_csv\"}"))
                        .get("id")
                        .asText());
        await().atMost(WAIT)
                .until(() -> api.get("/v1/jobs/" + ids.get("job"))
                        .body()
                        .get("status")
                        .asText()
                        .equals("succeeded"));
        await().atMost(WAIT).until(() -> {
            JsonNode deliveries = api.get("/v1/webhook_endpoints/" + ids.get("we") + "/deliveries")
                    .body()
                    .get("data");
            for (JsonNode d : deliveries) {
                if (d.get("status").asText().equals("succeeded")) {
                    ids.put("msg", d.get("id").asText());
                    return true;
                }
            }
            return false;
        });
        ids.put("evt", api.get("/v1/events?limit=1").body().at("/data/0/id").asText());
    }

    private static JsonNode created(Api.Answer answer) {
        assertThat(answer.status()).as(answer.raw().body()).isBetween(200, 202);
        return answer.body();
    }

    @Test
    void theServerAnswersExactlyTheRoutesTheDocumentDescribes() {
        // given
        Set<String> documented = new HashSet<>();
        Operations.of(document).forEach(op -> documented.add(op.route()));
        List<String> routes = server.routes();
        Set<String> gets = new HashSet<>();
        Set<String> heads = new HashSet<>();
        Set<String> others = new HashSet<>();
        for (String route : routes) {
            String method = route.substring(0, route.indexOf(' '));
            String path = route.substring(route.indexOf(' ') + 1);
            switch (method) {
                case "GET" -> gets.add(path);
                case "HEAD" -> heads.add(path);
                default -> others.add(route);
            }
        }
        Set<String> registered = new HashSet<>(others);
        gets.forEach(path -> registered.add("GET " + path));

        // then: every GET answers HEAD too, as the document's introduction says
        assertThat(heads).as("paths with HEAD").isEqualTo(gets);
        Set<String> undocumented = new HashSet<>(registered);
        undocumented.removeAll(documented);
        assertThat(undocumented)
                .as("routes the server answers that the document does not describe")
                .isEmpty();
        Set<String> missing = new HashSet<>(documented);
        missing.removeAll(registered);
        assertThat(missing).as("documented routes the server does not answer").isEmpty();
    }

    @TestFactory
    Stream<DynamicTest> everyOperationAnswersItsExampleAsDocumented() {
        List<Operations.Operation> ops = new ArrayList<>(Operations.of(document));
        // deletions last, so the other operations still find what they work on
        ops.sort((a, b) ->
                Boolean.compare(a.method().equals("DELETE"), b.method().equals("DELETE")));
        return ops.stream()
                .map(op -> DynamicTest.dynamicTest(op.route(), () -> {
                    Api.Answer answer = send(op, Variant.EXAMPLE);
                    assertAsDocumented(op, Received.of(answer));
                    Integer refused =
                            op.upgrades() ? Integer.valueOf(UPGRADE_REQUIRED) : REFUSED_EXAMPLES.get(op.route());
                    if (refused == null) {
                        assertThat(answer.status())
                                .as(op.route() + ": " + answer.raw().body())
                                .isBetween(200, 299);
                    } else {
                        assertThat(answer.status())
                                .as(op.route() + ": " + answer.raw().body())
                                .isEqualTo(refused);
                    }
                }));
    }

    @TestFactory
    Stream<DynamicTest> everyOperationAnswersBadRequestsAsDocumented() {
        List<DynamicTest> tests = new ArrayList<>();
        for (Operations.Operation op : Operations.of(document)) {
            for (Variant variant : Variant.values()) {
                if (variant != Variant.EXAMPLE && variant.appliesTo(op)) {
                    tests.add(DynamicTest.dynamicTest(op.route() + " " + variant.description, () -> {
                        Api.Answer answer = send(op, variant);
                        assertAsDocumented(op, Received.of(answer));
                        assertThat(answer.status())
                                .as(op.route() + " " + variant.description + ": "
                                        + answer.raw().body())
                                .isBetween(400, 499);
                        if (variant == Variant.WRONG_KEY) {
                            assertThat(answer.status())
                                    .as(op.route() + " " + variant.description)
                                    .isEqualTo(401);
                        }
                        assertThat(answer.contentType()).startsWith("application/problem+json");
                    }));
                }
            }
        }
        assertThat(tests).hasSizeGreaterThan(60);
        return tests.stream();
    }

    /**
     * Every operation that documents {@code 101} is opened as a WebSocket (the JDK's HTTP client
     * cannot send an upgrade, so these go over a bare socket): with the key, without it (which its
     * security may allow), with a key that is not valid, and without the handshake's key and version.
     * Each answer must be as documented, like those of the other tests.
     */
    @TestFactory
    Stream<DynamicTest> everyWebSocketAnswersItsUpgradesAsDocumented() {
        List<Operations.Operation> sockets = Operations.of(document).stream()
                .filter(Operations.Operation::upgrades)
                .toList();
        assertThat(sockets)
                .as("operations that document 101 Switching Protocols")
                .isNotEmpty();
        List<DynamicTest> tests = new ArrayList<>();
        for (Operations.Operation op : sockets) {
            String target = target(op, Variant.EXAMPLE);
            tests.add(upgrade(
                    op, "with the API key", RawHttp.webSocketUpgrade(server.baseUri(), target, server.apiKey()), 101));
            tests.add(upgrade(
                    op,
                    "without a key",
                    RawHttp.webSocketUpgrade(server.baseUri(), target, null),
                    op.keyOptional() ? 101 : 401));
            tests.add(upgrade(
                    op,
                    "with an API key that is not valid",
                    RawHttp.webSocketUpgrade(server.baseUri(), target, WRONG_KEY),
                    401));
            tests.add(upgrade(
                    op,
                    "without Sec-WebSocket-Key and -Version",
                    "GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                            + "Upgrade: websocket\r\nConnection: Upgrade\r\nAuthorization: Bearer " + server.apiKey()
                            + "\r\n\r\n",
                    400));
        }
        return tests.stream();
    }

    private DynamicTest upgrade(Operations.Operation op, String description, String request, int status) {
        return DynamicTest.dynamicTest(op.route() + " upgrade " + description, () -> {
            RawHttp.Answer answer = RawHttp.exchange(server.baseUri(), request, WAIT);
            assertAsDocumented(op, Received.of(answer));
            assertThat(answer.status())
                    .as(op.route() + " upgrade " + description + ": " + answer.raw())
                    .isEqualTo(status);
        });
    }

    @Test
    void everyEventAndEveryWebhookSentMatchesTheWebhooksSection() throws IOException {
        JsonNode events = api.get("/v1/events?limit=100").body().get("data");
        Set<String> types = new HashSet<>();
        for (JsonNode event : events) {
            types.add(event.get("type").asText());
            assertThat(schemas.errors(webhookPayload(event.get("type").asText()), event))
                    .as(event.toString())
                    .isEmpty();
        }
        assertThat(types).contains("payment.succeeded", "refund.created", "report.succeeded");

        assertThat(receiver.received()).isNotEmpty();
        for (LoopbackReceiver.Received webhook : receiver.received()) {
            JsonNode body = JSON.readTree(webhook.body());
            String pointer = "/webhooks/" + Operations.escape(body.path("type").asText()) + "/post";
            assertThat(schemas.errors(webhookPayload(body.path("type").asText()), body))
                    .as(body.toString())
                    .isEmpty();
            for (JsonNode p : document.at(pointer + "/parameters")) {
                JsonNode param = Operations.resolve(document, p, "").node();
                String value = webhook.headers().get(param.get("name").asText());
                assertThat(value).as(param.get("name").asText()).isNotNull();
                assertThat(schemas.errors(
                                Operations.resolve(document, p, "").pointer() + "/schema", TextNode.valueOf(value)))
                        .as(param.get("name").asText() + ": " + value)
                        .isEmpty();
            }
        }
    }

    private String webhookPayload(String type) {
        JsonNode hook = document.path("webhooks").path(type);
        assertThat(hook.isMissingNode())
                .as("webhook " + type + " is documented")
                .isFalse();
        return "/webhooks/" + Operations.escape(type) + "/post/requestBody/content/application~1json/schema";
    }

    /** What a test sends: the documented example, or one thing wrong with it. */
    private enum Variant {
        EXAMPLE("the example"),
        WITHOUT_KEY("without an API key"),
        WRONG_KEY("with an API key that is not valid"),
        UNKNOWN_ID("with an id that does not exist"),
        INVALID_LIMIT("with limit=0"),
        WITHOUT_IDEMPOTENCY_KEY("without the required Idempotency-Key"),
        UNKNOWN_MEMBER("with a body that has an unknown member"),
        MALFORMED_BODY("with a body that is not JSON"),
        TEXT_BODY("with a body sent as text/plain");

        private final String description;

        Variant(String description) {
            this.description = description;
        }

        boolean appliesTo(Operations.Operation op) {
            return switch (this) {
                case EXAMPLE -> true;
                case WITHOUT_KEY, WRONG_KEY -> op.authenticated();
                case UNKNOWN_ID ->
                    op.parameters().stream().anyMatch(p -> p.path("in").asText().equals("path"));
                case INVALID_LIMIT ->
                    op.parameters().stream()
                            .anyMatch(p -> p.path("name").asText().equals("limit"));
                case WITHOUT_IDEMPOTENCY_KEY ->
                    op.parameters().stream()
                            .anyMatch(p -> p.path("name").asText().equals("Idempotency-Key")
                                    && p.path("required").asBoolean());
                case UNKNOWN_MEMBER, MALFORMED_BODY, TEXT_BODY -> op.node().has("requestBody");
            };
        }
    }

    private Api.Answer send(Operations.Operation op, Variant variant) {
        Api client = !op.authenticated() || variant == Variant.WITHOUT_KEY
                ? anonymous
                : variant == Variant.WRONG_KEY ? wrongKey : api;
        HttpRequest.Builder request = client.request(target(op, variant));
        for (JsonNode p : op.parameters()) {
            if (p.path("in").asText().equals("header")
                    && p.path("name").asText().equals("Idempotency-Key")
                    && variant != Variant.WITHOUT_IDEMPOTENCY_KEY) {
                // a fresh key each time: the example's key would replay the first answer
                request.header("Idempotency-Key", UUID.randomUUID().toString());
            }
        }
        JsonNode example = op.node().at("/requestBody/content/application~1json/example");
        String contentType = "application/json";
        String body = switch (variant) {
            case UNKNOWN_MEMBER -> "{\"not_a_member\": true}";
            case MALFORMED_BODY -> "{\"amount\": ";
            case TEXT_BODY -> {
                contentType = "text/plain";
                yield "hello";
            }
            default -> example.isMissingNode() ? null : real(example).toString();
        };
        if (body == null) {
            request.method(op.method(), HttpRequest.BodyPublishers.noBody());
        } else {
            request.header("Content-Type", contentType).method(op.method(), HttpRequest.BodyPublishers.ofString(body));
        }
        return api.send(request.build());
    }

    /** The path and query {@code variant} of {@code op} is sent to: the example's, with real ids (or unknown ones). */
    private String target(Operations.Operation op, Variant variant) {
        StringBuilder path = new StringBuilder();
        Matcher segments = Pattern.compile("\\{([^}]+)}|[^{]+").matcher(op.path());
        while (segments.find()) {
            if (segments.group(1) == null) {
                path.append(segments.group());
                continue;
            }
            JsonNode example = parameter(op, "path", segments.group(1)).path("example");
            String value = variant == Variant.UNKNOWN_ID
                    ? unknown(example.asText())
                    : real(example).asText();
            path.append(URLEncoder.encode(value, StandardCharsets.UTF_8));
        }
        List<String> query = new ArrayList<>();
        for (JsonNode p : op.parameters()) {
            if (p.path("in").asText().equals("query") && p.has("example")) {
                String value = variant == Variant.INVALID_LIMIT
                                && p.path("name").asText().equals("limit")
                        ? "0"
                        : real(p.get("example")).asText();
                query.add(p.get("name").asText() + "=" + URLEncoder.encode(value, StandardCharsets.UTF_8));
            }
        }
        if (!query.isEmpty()) {
            path.append('?').append(String.join("&", query));
        }
        return path.toString();
    }

    /** {@code example} with the example ids replaced by the real ones and the webhook URLs by the receiver's. */
    private JsonNode real(JsonNode example) {
        if (example.isTextual()) {
            String text = example.asText();
            Matcher id = EXAMPLE_ID.matcher(text);
            if (id.matches()) {
                assertThat(ids).as("a real " + id.group(1) + "_ id").containsKey(id.group(1));
                return TextNode.valueOf(ids.get(id.group(1)));
            }
            return text.startsWith(EXAMPLE_WEBHOOK_HOST)
                    ? TextNode.valueOf(receiver.url(text.substring(EXAMPLE_WEBHOOK_HOST.length())))
                    : example;
        }
        if (example instanceof ObjectNode object) {
            ObjectNode copy = JSON.createObjectNode();
            object.properties().forEach(e -> copy.set(e.getKey(), real(e.getValue())));
            return copy;
        }
        if (example instanceof ArrayNode array) {
            ArrayNode copy = JSON.createArrayNode();
            array.forEach(item -> copy.add(real(item)));
            return copy;
        }
        return example;
    }

    /** An id of the same kind that names nothing, or a name that is nothing. */
    private static String unknown(String example) {
        Matcher id = EXAMPLE_ID.matcher(example);
        if (!id.matches()) {
            return "no-such-thing";
        }
        return id.group(1) + "_" + "0".repeat(example.length() - id.group(1).length() - 1);
    }

    private static JsonNode parameter(Operations.Operation op, String in, String name) {
        return op.parameters().stream()
                .filter(p -> p.path("in").asText().equals(in)
                        && p.path("name").asText().equals(name))
                .findFirst()
                .orElseThrow(() -> new AssertionError(op.route() + " does not document " + in + " parameter " + name));
    }

    /** An answer, from the JDK's client or a bare socket. */
    private record Received(int status, String contentType, String body, Function<String, @Nullable String> headers) {

        static Received of(Api.Answer answer) {
            return new Received(
                    answer.status(), answer.contentType(), answer.raw().body(), answer::header);
        }

        static Received of(RawHttp.Answer answer) {
            return new Received(answer.status(), answer.contentType(), answer.body(), answer::header);
        }

        @Nullable
        String header(String name) {
            return headers.apply(name);
        }
    }

    /** The answer's status, body and headers are what the operation documents. */
    private void assertAsDocumented(Operations.Operation op, Received answer) throws IOException {
        String status = Integer.toString(answer.status());
        String what = op.route() + " answered " + status + " " + answer.body();
        JsonNode documented = op.node().path("responses").get(status);
        assertThat(documented).as(what + ": not a documented status").isNotNull();
        Operations.Located response = Operations.resolve(document, documented, op.pointer() + "/responses/" + status);

        JsonNode content = response.node().path("content");
        if (!content.isMissingNode()) {
            String media = Operations.mediaType(answer.contentType());
            assertThat(content.has(media))
                    .as(what + ": content type " + answer.contentType())
                    .isTrue();
            String schema = response.pointer() + "/content/" + Operations.escape(media) + "/schema";
            JsonNode body = media.endsWith("json") ? JSON.readTree(answer.body()) : TextNode.valueOf(answer.body());
            assertThat(schemas.errors(schema, body)).as(what).isEmpty();
        }
        for (Map.Entry<String, JsonNode> h : response.node().path("headers").properties()) {
            Operations.Located header = Operations.resolve(
                    document, h.getValue(), response.pointer() + "/headers/" + Operations.escape(h.getKey()));
            String value = answer.header(h.getKey());
            if (header.node().path("required").asBoolean()) {
                assertThat(value).as(what + ": header " + h.getKey()).isNotNull();
            }
            if (value != null) {
                assertThat(schemas.errors(
                                header.pointer() + "/schema",
                                headerValue(header.node().path("schema"), value)))
                        .as(what + ": header " + h.getKey() + ": " + value)
                        .isEmpty();
            }
        }
    }

    /** A header's text as the JSON value its schema describes (integers are numbers). */
    private JsonNode headerValue(JsonNode schema, String value) {
        JsonNode resolved = Operations.resolve(document, schema, "").node();
        if (resolved.path("type").asText().equals("integer") && value.matches("-?\\d{1,18}")) {
            long n = Long.parseLong(value);
            return n == (int) n ? IntNode.valueOf((int) n) : LongNode.valueOf(n);
        }
        return TextNode.valueOf(value);
    }
}
