package dev.retrysafe.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.retrysafe.testkit.Fuzz;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Hostile requests to every public route over real HTTP, from seeded random generators: mangled
 * JSON bodies, ids and query parameters, odd {@code Authorization}, {@code Idempotency-Key} and
 * {@code Content-Type} headers. Every answer must come within the client's timeout (no hang), be
 * below 500, and be a problem document when it is an error; afterwards, what the API lists is
 * exactly what its successful answers created (no partial write).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class HttpFuzzTest {

    private static final Duration ANSWER_DEADLINE = Duration.ofSeconds(10);
    private static final int ROUNDS = 400;

    /** A route, a valid body for it (field name to JSON value), and the query parameters it reads. */
    private record Operation(String method, String path, List<String[]> body, List<String> query) {}

    private static final List<Operation> OPERATIONS = List.of(
            new Operation(
                    "POST",
                    "/v1/payments",
                    fields("amount", "500", "currency", "\"eur\"", "description", "\"x\""),
                    List.of()),
            new Operation("GET", "/v1/payments", List.of(), List.of("limit", "starting_after")),
            new Operation("GET", "/v1/payments/{payment}", List.of(), List.of()),
            new Operation("HEAD", "/v1/payments/{payment}", List.of(), List.of()),
            new Operation("POST", "/v1/refunds", fields("payment_id", "\"{payment}\"", "amount", "1"), List.of()),
            new Operation("GET", "/v1/refunds", List.of(), List.of("limit", "starting_after")),
            new Operation("GET", "/v1/refunds/{refund}", List.of(), List.of()),
            new Operation("GET", "/v1/rate_limit", List.of(), List.of()),
            new Operation("GET", "/v1/events", List.of(), List.of("limit", "starting_after", "type")),
            new Operation("GET", "/v1/events/{event}", List.of(), List.of()),
            new Operation("GET", "/v1/events/{event}/deliveries", List.of(), List.of("limit", "starting_after")),
            new Operation("GET", "/v1/jobs", List.of(), List.of("limit", "starting_after")),
            new Operation("GET", "/v1/webhook_attempt_stats", List.of(), List.of("hours")),
            new Operation("GET", "/", List.of(), List.of()),
            new Operation("GET", "/dashboard", List.of(), List.of()),
            new Operation("GET", "/dashboard/{asset}", List.of(), List.of()),
            new Operation("GET", "/openapi.json", List.of(), List.of()),
            new Operation("GET", "/docs", List.of(), List.of()),
            new Operation("GET", "/docs/{asset}", List.of(), List.of()),
            new Operation("GET", "/problems", List.of(), List.of()),
            // without an upgrade (the JDK client cannot ask for one) the stream must refuse as a problem
            new Operation("GET", "/v1/events/stream", List.of(), List.of("after", "types")),
            new Operation(
                    "POST",
                    "/v1/reports",
                    fields(
                            "kind",
                            "\"payments_csv\"",
                            "from",
                            "\"2026-01-01T00:00:00Z\"",
                            "to",
                            "\"2030-01-01T00:00:00Z\""),
                    List.of()),
            new Operation("GET", "/v1/jobs/{job}", List.of(), List.of()),
            new Operation("DELETE", "/v1/jobs/{job}", List.of(), List.of()),
            new Operation("GET", "/v1/jobs/{job}/result", List.of(), List.of()),
            new Operation(
                    "POST",
                    "/v1/webhook_endpoints",
                    fields(
                            "url",
                            "\"http://127.0.0.1:9/hook\"",
                            "event_types",
                            "[\"payment.succeeded\"]",
                            "description",
                            "\"d\"",
                            "rate_limit",
                            "5",
                            "ordered",
                            "true"),
                    List.of()),
            new Operation("GET", "/v1/webhook_endpoints", List.of(), List.of("limit", "starting_after")),
            new Operation("GET", "/v1/webhook_endpoints/{endpoint}", List.of(), List.of()),
            new Operation(
                    "PATCH",
                    "/v1/webhook_endpoints/{endpoint}",
                    fields(
                            "url",
                            "\"http://127.0.0.1:9/other\"",
                            "event_types",
                            "[\"*\"]",
                            "description",
                            "\"e\"",
                            "enabled",
                            "true",
                            "rate_limit",
                            "null",
                            "ordered",
                            "false"),
                    List.of()),
            new Operation("DELETE", "/v1/webhook_endpoints/{endpoint}", List.of(), List.of()),
            new Operation("GET", "/v1/webhook_endpoints/{endpoint}/secret", List.of(), List.of()),
            new Operation("POST", "/v1/webhook_endpoints/{endpoint}/rotate_secret", List.of(), List.of()),
            new Operation("POST", "/v1/webhook_endpoints/{endpoint}/enable", List.of(), List.of()),
            new Operation("POST", "/v1/webhook_endpoints/{endpoint}/pause", List.of(), List.of()),
            new Operation("POST", "/v1/webhook_endpoints/{endpoint}/resume", List.of(), List.of()),
            new Operation(
                    "POST",
                    "/v1/webhook_endpoints/{endpoint}/recover",
                    fields("since", "\"2026-01-01T00:00:00Z\""),
                    List.of()),
            new Operation(
                    "GET",
                    "/v1/webhook_endpoints/{endpoint}/deliveries",
                    List.of(),
                    List.of("limit", "starting_after")),
            new Operation("GET", "/v1/deliveries/{delivery}", List.of(), List.of()),
            new Operation("POST", "/v1/deliveries/{delivery}/retry", List.of(), List.of()),
            new Operation("GET", "/health", List.of(), List.of()),
            new Operation("GET", "/ready", List.of(), List.of()),
            new Operation("GET", "/metrics", List.of(), List.of()),
            new Operation("GET", "/problems/{problem}", List.of(), List.of()));

    private final HttpClient http = HttpClient.newBuilder()
            .connectTimeout(Duration.ofSeconds(5))
            .version(HttpClient.Version.HTTP_1_1)
            .build();
    private TestServer server;
    private Api api;
    private final Map<String, List<String>> ids = new LinkedHashMap<>();
    /** Payment, refund and endpoint ids the fuzzer's successful creations answered with. */
    private final Set<String> created = new HashSet<>();

    private final Set<String> deletedEndpoints = new HashSet<>();

    private static List<String[]> fields(String... pairs) {
        List<String[]> out = new ArrayList<>();
        for (int i = 0; i < pairs.length; i += 2) {
            out.add(new String[] {pairs[i], pairs[i + 1]});
        }
        return out;
    }

    @BeforeAll
    void start() {
        server = TestServer.h2()
                .loopbackWebhooks(List.of(Duration.ZERO, Duration.ofMillis(10)))
                .start();
        api = Api.of(server);
        // one of each resource, in this account and in the other one
        for (Api owner : List.of(api, new Api(server.baseUri(), server.otherApiKey()))) {
            String payment = owner.post("/v1/payments", "{\"amount\": 900, \"currency\": \"eur\"}")
                    .body()
                    .get("id")
                    .asText();
            String refund = owner.post("/v1/refunds", "{\"payment_id\": \"" + payment + "\", \"amount\": 1}")
                    .body()
                    .get("id")
                    .asText();
            String endpoint = owner.post(
                            "/v1/webhook_endpoints",
                            "{\"url\": \"http://127.0.0.1:9/setup\", \"event_types\": [\"*\"]}")
                    .body()
                    .get("id")
                    .asText();
            owner.post("/v1/payments", "{\"amount\": 901, \"currency\": \"eur\"}");
            String job = owner.post(
                            "/v1/reports",
                            "{\"kind\": \"payments_csv\"}",
                            UUID.randomUUID().toString())
                    .body()
                    .get("id")
                    .asText();
            ids.computeIfAbsent("payment", k -> new ArrayList<>()).add(payment);
            ids.computeIfAbsent("refund", k -> new ArrayList<>()).add(refund);
            ids.computeIfAbsent("endpoint", k -> new ArrayList<>()).add(endpoint);
            ids.computeIfAbsent("job", k -> new ArrayList<>()).add(job);
            ids.computeIfAbsent("event", k -> new ArrayList<>())
                    .add(owner.get("/v1/events?limit=1")
                            .body()
                            .get("data")
                            .get(0)
                            .get("id")
                            .asText());
            JsonNode deliveries = org.awaitility.Awaitility.await()
                    .atMost(ANSWER_DEADLINE)
                    .until(
                            () -> owner.get("/v1/webhook_endpoints/" + endpoint + "/deliveries")
                                    .body()
                                    .get("data"),
                            d -> !d.isEmpty());
            ids.computeIfAbsent("delivery", k -> new ArrayList<>())
                    .add(deliveries.get(0).get("id").asText());
        }
        ids.put("problem", List.of("validation-failed", "not-found"));
        ids.put("asset", List.of("dashboard.js", "docs.css"));
    }

    @AfterAll
    void stop() {
        http.close();
        server.close();
    }

    static List<Long> seeds() {
        return Fuzz.seeds(101, 102, 103, 104);
    }

    @ParameterizedTest
    @MethodSource("seeds")
    void hostileRequestsGetA4xxProblemOrASuccessNeverA5xxOrAHang(long seed) {
        Fuzz.run(seed, ROUNDS, (fuzz, round) -> {
            Operation op = fuzz.oneOf(OPERATIONS);
            HttpRequest request;
            try {
                request = request(fuzz, op);
            } catch (IllegalArgumentException e) {
                return; // the JDK client refuses to send it (an illegal header or URI): nothing reaches the server
            }
            HttpResponse<String> answer;
            try {
                answer = http.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
            } catch (HttpTimeoutException e) {
                throw new AssertionError("no answer within " + ANSWER_DEADLINE + " to " + describe(request), e);
            } catch (java.io.IOException e) {
                // a server may close a kept-alive connection after an error answer, and the JDK client
                // can race it by reusing that connection; the same request on a new connection must
                // be answered, or the server really dropped it
                try (HttpClient fresh = HttpClient.newBuilder()
                        .version(HttpClient.Version.HTTP_1_1)
                        .build()) {
                    answer = fresh.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
                } catch (java.io.IOException again) {
                    again.addSuppressed(e);
                    throw new AssertionError("no answer (" + again.getMessage() + ") to " + describe(request), again);
                }
            }

            String what = describe(request) + " -> " + answer.statusCode() + " " + answer.body();
            assertThat(answer.statusCode()).as(what).isBetween(200, 499);
            if (answer.statusCode() >= 400 && !request.method().equals("HEAD")) {
                assertThat(answer.headers().firstValue("Content-Type"))
                        .as(what)
                        .hasValueSatisfying(t -> assertThat(t).startsWith("application/problem+json"));
            }
            remember(request, op, answer);
        });
        assertNothingHalfWritten();
    }

    /** A route added without being fuzzed fails here, so "every public route" stays true. */
    @Test
    void everyRouteTheServerAnswersIsFuzzed() {
        Set<String> fuzzed = new HashSet<>();
        OPERATIONS.forEach(op -> fuzzed.add(withoutHead(op.method() + " " + template(op.path()))));
        Set<String> answered = new HashSet<>();
        server.routes().forEach(route -> answered.add(withoutHead(template(route))));
        assertThat(fuzzed).as("fuzzed routes (HEAD goes with its GET)").containsAll(answered);
        assertThat(answered).as("fuzzed routes the server does not answer").containsAll(fuzzed);
    }

    /** Every GET answers HEAD too: a HEAD route counts as its GET. */
    private static String withoutHead(String route) {
        return route.startsWith("HEAD ") ? "GET " + route.substring(5) : route;
    }

    /** A path with its parameters unnamed: {@code /v1/payments/{}}. */
    private static String template(String path) {
        return path.replaceAll("\\{[^}]*}", "{}");
    }

    private HttpRequest request(Fuzz fuzz, Operation op) {
        String path = op.path();
        for (String kind : List.of("payment", "refund", "event", "job", "endpoint", "delivery", "problem", "asset")) {
            if (path.contains("{" + kind + "}")) {
                path = path.replace("{" + kind + "}", id(fuzz, kind));
            }
        }
        StringBuilder uri = new StringBuilder(path);
        if (!op.query().isEmpty() && fuzz.chance(0.7)) {
            uri.append('?');
            for (String name : op.query()) {
                if (fuzz.chance(0.6)) {
                    uri.append(name)
                            .append('=')
                            .append(fuzz.chance(0.3) ? fuzz.oneOf("1", "100", "0", "101", "-1") : fuzz.urlPart(60))
                            .append('&');
                }
            }
            if (fuzz.chance(0.2)) {
                uri.append(fuzz.urlPart(10)).append('=').append(fuzz.urlPart(10));
            }
        }
        String body = op.body().isEmpty()
                ? (fuzz.chance(0.2) ? fuzz.jsonValue(2) : "")
                : fuzz.chance(0.2) ? object(op.body()) : fuzz.mutateObject(op.body());
        body = onlyLoopback(body.replace("{payment}", id(fuzz, "payment")));
        HttpRequest.BodyPublisher publisher = body.isEmpty()
                ? HttpRequest.BodyPublishers.noBody()
                : HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8);
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(server.baseUri() + uri.toString()))
                .timeout(ANSWER_DEADLINE)
                .method(op.method(), publisher);
        switch (fuzz.nextInt(10)) {
            case 0 -> {
                /* no credentials */
            }
            case 1 -> b.header("Authorization", fuzz.headerValue(80));
            case 2 -> b.header("Authorization", "Bearer " + fuzz.headerValue(80));
            case 3 -> b.header("Authorization", fuzz.oneOf("Basic ", "bearer ", "Bearer  ") + server.apiKey());
            default -> b.header("Authorization", "Bearer " + server.apiKey());
        }
        if (op.method().equals("POST") || fuzz.chance(0.1)) {
            switch (fuzz.nextInt(10)) {
                case 0 -> {
                    /* no key */
                }
                case 1, 2 -> b.header("Idempotency-Key", fuzz.headerValue(300));
                case 3 -> b.header("Idempotency-Key", fuzz.oneOf("\"fixed-1\"", "\"fixed-2\""));
                default -> b.header("Idempotency-Key", "\"" + UUID.randomUUID() + "\"");
            }
        }
        if (op.path().equals("/v1/events/stream") && fuzz.chance(0.5)) {
            // the WebSocket handshake's own headers (the JDK client refuses to send Upgrade itself)
            b.header("Sec-WebSocket-Version", fuzz.chance(0.5) ? "13" : fuzz.headerValue(10));
            b.header("Sec-WebSocket-Key", fuzz.chance(0.5) ? "dGhlIHNhbXBsZSBub25jZQ==" : fuzz.headerValue(40));
        }
        if (!body.isEmpty()) {
            b.header(
                    "Content-Type",
                    fuzz.chance(0.85)
                            ? "application/json"
                            : fuzz.oneOf(
                                    "text/plain",
                                    "application/json; charset=latin1",
                                    "multipart/form-data",
                                    fuzz.headerValue(30)));
        }
        return b.build();
    }

    /** A real id of this account, of the other account, or garbage. */
    private String id(Fuzz fuzz, String kind) {
        return switch (fuzz.nextInt(4)) {
            case 0, 1 -> ids.get(kind).getFirst();
            case 2 -> ids.get(kind).getLast();
            default -> fuzz.urlPart(60);
        };
    }

    private static String object(List<String[]> fields) {
        StringBuilder b = new StringBuilder("{");
        for (int i = 0; i < fields.size(); i++) {
            b.append(i == 0 ? "" : ",")
                    .append('"')
                    .append(fields.get(i)[0])
                    .append("\":")
                    .append(fields.get(i)[1]);
        }
        return b.append('}').toString();
    }

    /**
     * Webhook URLs in fuzzed bodies must never name anything but loopback, so that a guard that
     * let one through could not send traffic off this machine: every other scheme separator is broken.
     */
    private static String onlyLoopback(String body) {
        return body.replaceAll("://(?!127\\.0\\.0\\.1[:/]|\\[::1\\][:/])", ":/");
    }

    private void remember(HttpRequest request, Operation op, HttpResponse<String> answer) throws Exception {
        // a success means the server took the key, in whichever spelling of the scheme it accepts
        if (answer.statusCode() >= 300
                || !request.headers().firstValue("Authorization").orElse("").contains(server.apiKey())) {
            return;
        }
        if (op.method().equals("POST")
                && List.of("/v1/payments", "/v1/refunds", "/v1/webhook_endpoints")
                        .contains(op.path())) {
            created.add(com.fasterxml.jackson.databind.json.JsonMapper.builder()
                    .build()
                    .readTree(answer.body())
                    .get("id")
                    .asText());
        }
        if (op.method().equals("DELETE") && op.path().startsWith("/v1/webhook_endpoints/")) {
            deletedEndpoints.add(request.uri().getPath().substring("/v1/webhook_endpoints/".length()));
        }
    }

    /** Every payment, refund and endpoint listed was answered with a success, and every success is listed. */
    private void assertNothingHalfWritten() {
        Set<String> listed = new HashSet<>();
        for (String list : List.of("/v1/payments", "/v1/refunds", "/v1/webhook_endpoints")) {
            listed.addAll(listAll(list));
        }
        Set<String> expected = new HashSet<>(created);
        expected.addAll(ids.get("payment").subList(0, 1));
        expected.addAll(ids.get("refund").subList(0, 1));
        expected.addAll(ids.get("endpoint").subList(0, 1));
        expected.removeAll(deletedEndpoints);
        Set<String> setupSecondPayment = new HashSet<>(listed);
        setupSecondPayment.removeAll(expected);
        // the setup's second payment of this account is the only other one
        assertThat(setupSecondPayment)
                .as("listed but never answered with a success")
                .hasSize(1);
        assertThat(listed).as("answered with a success but not listed").containsAll(expected);
        // every payment has exactly one event of its outcome, every refund its refund.created
        Map<String, Integer> eventsPerObject = new LinkedHashMap<>();
        for (JsonNode e : listAllNodes("/v1/events")) {
            String type = e.get("type").asText();
            if (type.startsWith("payment.") || type.equals("refund.created")) {
                eventsPerObject.merge(e.get("data").get("id").asText(), 1, Integer::sum);
            }
        }
        for (String id : listed) {
            if (id.startsWith("pay_") || id.startsWith("re_")) {
                assertThat(eventsPerObject.get(id)).as("events of " + id).isEqualTo(1);
            }
        }
    }

    private Set<String> listAll(String path) {
        Set<String> found = new HashSet<>();
        listAllNodes(path).forEach(n -> found.add(n.get("id").asText()));
        return found;
    }

    private List<JsonNode> listAllNodes(String path) {
        List<JsonNode> all = new ArrayList<>();
        String after = null;
        for (int page = 0; page < 1_000; page++) {
            JsonNode body = api.get(path + "?limit=100" + (after == null ? "" : "&starting_after=" + after))
                    .body();
            body.get("data").forEach(all::add);
            if (!body.get("has_more").asBoolean()) {
                return all;
            }
            after = all.getLast().get("id").asText();
        }
        throw new AssertionError(path + " has more than 1,000 pages");
    }

    private static String describe(HttpRequest r) {
        return r.method() + " " + r.uri() + " " + r.headers().map();
    }
}
