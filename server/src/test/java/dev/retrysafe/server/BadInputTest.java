package dev.retrysafe.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Every kind of bad input answers the right 4xx problem, never a 500. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class BadInputTest {

    private TestServer server;
    private Api api;

    @BeforeAll
    void start() {
        server = TestServer.h2().start();
        api = Api.of(server);
    }

    @AfterAll
    void stop() {
        server.close();
    }

    static Stream<Arguments> invalidPayments() {
        return Stream.of(
                Arguments.of("{\"currency\": \"eur\"}", "amount", "is required"),
                Arguments.of("{\"amount\": \"500\", \"currency\": \"eur\"}", "amount", "must be an integer"),
                Arguments.of("{\"amount\": 5.5, \"currency\": \"eur\"}", "amount", "must be an integer"),
                Arguments.of("{\"amount\": 0, \"currency\": \"eur\"}", "amount", "between 1 and 99999999"),
                Arguments.of("{\"amount\": -1, \"currency\": \"eur\"}", "amount", "between 1 and 99999999"),
                Arguments.of("{\"amount\": 100000000, \"currency\": \"eur\"}", "amount", "between 1 and 99999999"),
                Arguments.of("{\"amount\": 1e400, \"currency\": \"eur\"}", "amount", "must be an integer"),
                Arguments.of(
                        "{\"amount\": 99999999999999999999999, \"currency\": \"eur\"}",
                        "amount",
                        "between 1 and 99999999"),
                Arguments.of("{\"amount\": true, \"currency\": \"eur\"}", "amount", "must be an integer"),
                Arguments.of("{\"amount\": 500}", "currency", "is required"),
                Arguments.of("{\"amount\": 500, \"currency\": \"EUR\"}", "currency", "ISO 4217"),
                Arguments.of("{\"amount\": 500, \"currency\": \"abc\"}", "currency", "ISO 4217"),
                Arguments.of("{\"amount\": 500, \"currency\": 978}", "currency", "must be a string"),
                Arguments.of(
                        "{\"amount\": 500, \"currency\": \"eur\", \"description\": 7}",
                        "description",
                        "must be a string"),
                Arguments.of(
                        "{\"amount\": 500, \"currency\": \"eur\", \"description\": \"" + "x".repeat(1001) + "\"}",
                        "description",
                        "at most 1000"),
                Arguments.of(
                        "{\"amount\": 500, \"currency\": \"eur\", \"captured\": true}",
                        "captured",
                        "not a known field"));
    }

    @ParameterizedTest
    @MethodSource("invalidPayments")
    void invalidPaymentFieldsAreListedInA400Problem(String body, String field, String detail) {
        Api.Answer a = api.post("/v1/payments", body);

        assertThat(a.status()).as(a.raw().body()).isEqualTo(400);
        assertThat(a.contentType()).startsWith("application/problem+json");
        JsonNode p = a.body();
        assertThat(p.get("type").asText()).isEqualTo("/problems/validation-failed");
        assertThat(p.get("status").asInt()).isEqualTo(400);
        assertThat(p.get("errors")).anySatisfy(e -> {
            assertThat(e.get("field").asText()).isEqualTo(field);
            assertThat(e.get("detail").asText()).contains(detail);
        });
    }

    @Test
    void everyInvalidFieldIsListedAtOnce() {
        Api.Answer a = api.post("/v1/payments", "{\"amount\": -5, \"currency\": \"xx\", \"extra\": 1}");

        assertThat(a.body().get("errors").findValuesAsText("field"))
                .containsExactlyInAnyOrder("amount", "currency", "extra");
    }

    @ParameterizedTest
    @MethodSource("malformed")
    void malformedJsonIsA400Problem(String body) {
        Api.Answer a = api.post("/v1/payments", body);

        assertThat(a.status()).isEqualTo(400);
        assertThat(a.body().get("type").asText()).isEqualTo("/problems/malformed-json");
    }

    static Stream<Arguments> brokenJson() {
        return Stream.of(
                Arguments.of(
                        "{\"amount\": 500,",
                        "at line 1, column 16: expected a member name in double quotes, found the end of the body"),
                Arguments.of(
                        "{\"amount\": 500,}",
                        "at line 1, column 16: expected a member name in double quotes, found '}'"),
                Arguments.of(
                        "{\"amount\": 500 \"currency\": \"eur\"}",
                        "at line 1, column 16: expected ',' or '}' after the member's value, found '\"'"),
                Arguments.of("{\"amount\": 500,\n \"currency\": eur}", "at line 2, column 14: expected a value"),
                Arguments.of(
                        "{\"amount\": 5, \"amount\": 6}",
                        "at line 1, column 15: the member name \"amount\" appears twice"));
    }

    @ParameterizedTest
    @MethodSource("brokenJson")
    void malformedJsonSaysWhereItBrokeInWordsWithoutParserInternals(String body, String where) {
        Api.Answer a = api.post("/v1/payments", body);

        assertThat(a.status()).isEqualTo(400);
        String detail = a.body().get("detail").asText();
        assertThat(detail).startsWith("The body is not valid JSON: " + where);
        assertThat(detail).doesNotContain("Source", "REDACTED", "jackson", "Jackson", "Feature", "code 1", "`");
    }

    static Stream<String> malformed() {
        return Stream.of(
                "",
                "{",
                "{\"amount\": 500,}",
                "[1,2]",
                "\"text\"",
                "{\"amount\": 1} {}",
                "{\"amount\": 1, \"amount\": 2, \"currency\": \"eur\"}",
                "nul",
                // limits Jackson reports without a location (once a 500)
                "{\"amount\": " + "9".repeat(1200) + ", \"currency\": \"eur\"}",
                "{\"amount\": 1, \"currency\": \"eur\", \"x\": " + "[".repeat(1500) + "]".repeat(1500) + "}",
                "{\"a\":".repeat(1500) + "1" + "}".repeat(1500));
    }

    @ParameterizedTest
    @ValueSource(strings = {"\"unterminated", "\"bad\\qescape\"", "\"\"", "x-256-characters", "\"ok\" trailing"})
    void invalidIdempotencyKeysAre400ProblemsAndChargeNothing(String key) {
        String header = key.equals("x-256-characters") ? "k".repeat(256) : key;
        Api.Answer a = api.post("/v1/payments", "{\"amount\": 4242, \"currency\": \"eur\"}", header);

        assertThat(a.status()).as(a.raw().body()).isEqualTo(400);
        assertThat(a.contentType()).startsWith("application/problem+json");
        assertThat(a.body().get("type").asText()).isEqualTo("/problems/idempotency-key-invalid");
        assertThat(api.get("/v1/payments?limit=100").body().get("data"))
                .noneSatisfy(p -> assertThat(p.get("amount").asLong()).isEqualTo(4242));
    }

    @ParameterizedTest
    @ValueSource(strings = {"/v1/payments", "/v1/refunds"})
    void missingIdempotencyKeyIs400WhereRequired(String path) {
        Api.Answer a = api.post(path, "{\"amount\": 7, \"currency\": \"eur\", \"payment_id\": \"pay_x\"}", null);

        assertThat(a.status()).as(a.raw().body()).isEqualTo(400);
        assertThat(a.body().get("type").asText()).isEqualTo("/problems/idempotency-key-missing");
    }

    /** Regression: the filter matched routes exactly, so a trailing slash skipped the required key. */
    @ParameterizedTest
    @ValueSource(strings = {"/v1/payments/", "/v1/refunds/"})
    void aTrailingSlashStillRequiresAnIdempotencyKey(String path) {
        Api.Answer a = api.post(path, "{\"amount\": 7, \"currency\": \"eur\", \"payment_id\": \"pay_x\"}", null);

        assertThat(a.status()).as(a.raw().body()).isEqualTo(400);
        assertThat(a.body().get("type").asText()).isEqualTo("/problems/idempotency-key-missing");
    }

    @Test
    void wrongContentTypeIs415() {
        Api.Answer form = api.send(
                "POST",
                "/v1/payments",
                "application/x-www-form-urlencoded",
                "amount=500".getBytes(StandardCharsets.UTF_8));
        Api.Answer none = api.send("POST", "/v1/payments", null, "{}".getBytes(StandardCharsets.UTF_8));
        Api.Answer latin1 = api.send(
                "POST", "/v1/payments", "application/json; charset=iso-8859-1", "{}".getBytes(StandardCharsets.UTF_8));
        Api.Answer onlySeparators = api.send("POST", "/v1/payments", ";;;", "{}".getBytes(StandardCharsets.UTF_8));

        for (Api.Answer a : new Api.Answer[] {form, none, latin1, onlySeparators}) {
            assertThat(a.status()).isEqualTo(415);
            assertThat(a.body().get("type").asText()).isEqualTo("/problems/unsupported-media-type");
        }
        assertThat(api.send(
                                "POST",
                                "/v1/payments",
                                "application/json; charset=UTF-8",
                                "{\"amount\": 1, \"currency\": \"eur\"}".getBytes(StandardCharsets.UTF_8))
                        .status())
                .isEqualTo(201);
    }

    @Test
    void bodyOverOneMebibyteIs413() {
        byte[] big = ("{\"description\": \"" + "x".repeat(1024 * 1024) + "\"}").getBytes(StandardCharsets.UTF_8);
        Api.Answer a = api.send("POST", "/v1/payments", "application/json", big);

        assertThat(a.status()).isEqualTo(413);
        assertThat(a.body().get("type").asText()).isEqualTo("/problems/request-too-large");
    }

    @Test
    void unknownRouteIs404Problem() {
        Api.Answer a = api.get("/v1/nothing-here");

        assertThat(a.status()).isEqualTo(404);
        assertThat(a.body().get("type").asText()).isEqualTo("/problems/not-found");
        assertThat(new Api(server.baseUri(), null).get("/nowhere").status()).isEqualTo(404);
    }

    @Test
    void wrongMethodIs405WithAllow() {
        Api.Answer a = api.send("DELETE", "/v1/payments", null, new byte[0]);

        assertThat(a.status()).isEqualTo(405);
        assertThat(a.body().get("type").asText()).isEqualTo("/problems/method-not-allowed");
        assertThat(a.header("Allow")).contains("GET").contains("POST");
    }

    /** Regression: a 405 answered under an Idempotency-Key was replayed without its Allow header. */
    @Test
    void a405StoredUnderAKeyIsReplayedWithItsAllowHeader() {
        Api.Answer first = api.post("/v1/payments/pay_01m8vbckb8wnw05ky22g9310j6", "{}", "allow-1");
        Api.Answer replay = api.post("/v1/payments/pay_01m8vbckb8wnw05ky22g9310j6", "{}", "allow-1");

        assertThat(first.status()).isEqualTo(405);
        assertThat(replay.status()).isEqualTo(405);
        assertThat(replay.header("Idempotent-Replayed")).isEqualTo("true");
        assertThat(replay.header("Allow")).isNotNull().isEqualTo(first.header("Allow"));
    }

    @Test
    void missingOrUnknownKeyIs401WithChallenge() {
        Api anonymous = new Api(server.baseUri(), null);
        Api wrong = new Api(server.baseUri(), "rs_not-a-real-key");

        for (Api.Answer a : new Api.Answer[] {
            anonymous.get("/v1/payments"),
            wrong.get("/v1/payments"),
            wrong.post("/v1/payments", "{\"amount\": 1, \"currency\": \"eur\"}")
        }) {
            assertThat(a.status()).isEqualTo(401);
            assertThat(a.header("WWW-Authenticate")).isEqualTo("Bearer");
            assertThat(a.body().get("type").asText()).isEqualTo("/problems/unauthorized");
        }
        Api.Answer basic = api.send(api.request("/v1/payments")
                .setHeader("Authorization", "Basic Zm9vOmJhcg==")
                .build());
        assertThat(basic.status()).isEqualTo(401);
    }

    @Test
    void badListParametersAre400() {
        for (String q : new String[] {
            "limit=0", "limit=101", "limit=abc", "starting_after=nope", "starting_after=re_01m8vbckb8wnw05ky22g9310j6"
        }) {
            Api.Answer a = api.get("/v1/payments?" + q);
            assertThat(a.status()).as(q).isEqualTo(400);
            assertThat(a.body().get("type").asText()).isEqualTo("/problems/validation-failed");
        }
        assertThat(api.get("/v1/payments?limit=100").status()).isEqualTo(200);
    }

    @Test
    void invalidRefundsAre400() {
        assertThat(api.post("/v1/refunds", "{}").body().get("errors").findValuesAsText("field"))
                .containsExactly("payment_id");
        assertThat(api.post("/v1/refunds", "{\"payment_id\": \"pay_01m8vbckb8wnw05ky22g9310j6\", \"amount\": -1}")
                        .status())
                .isEqualTo(400);
        assertThat(api.post("/v1/refunds", "{\"payment_id\": \"x\", \"reason\": \"y\"}")
                        .body()
                        .get("errors")
                        .findValuesAsText("field"))
                .containsExactlyInAnyOrder("payment_id", "reason");
    }

    @Test
    void everyProblemTypeHasAReadablePage() {
        Api anonymous = new Api(server.baseUri(), null);
        for (String slug : new String[] {
            "not-found",
            "method-not-allowed",
            "request-too-large",
            "malformed-json",
            "unsupported-media-type",
            "validation-failed",
            "unauthorized",
            "refund-exceeds-payment",
            "bank-unavailable",
            "internal-error",
            "idempotency-key-missing",
            "idempotency-key-invalid",
            "idempotency-key-in-use",
            "idempotency-key-reused"
        }) {
            Api.Answer page =
                    anonymous.send(anonymous.request("/problems/" + slug).GET().build());
            assertThat(page.status()).as(slug).isEqualTo(200);
            assertThat(page.contentType()).startsWith("text/html");
            assertThat(page.raw().body()).contains("<h1>");
        }
        assertThat(anonymous.get("/problems/no-such-problem").status()).isEqualTo(404);
    }

    @Test
    void rawMalformedRequestLineIsStillAProblem() throws Exception {
        try (java.net.Socket s = new java.net.Socket("127.0.0.1", server.port())) {
            s.setSoTimeout(5000);
            s.getOutputStream()
                    .write("GET /\u0001bad HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
            String response = new String(s.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
            assertThat(response).startsWith("HTTP/1.1 400");
            assertThat(response).contains("\"type\":\"/problems/bad-request\"");
        }
    }

    /** Regression: Jetty's own 414 and 431 carried the validation-failed type. */
    @Test
    void oversizedTargetsAndHeadersAreProblemsOfTheirOwnType() {
        Api.Answer longUri = api.get("/v1/payments?starting_after=" + "p".repeat(20_000));
        assertThat(longUri.status()).isEqualTo(414);
        assertThat(longUri.body().get("type").asText()).isEqualTo("/problems/uri-too-long");
        assertThat(longUri.body().get("status").asInt()).isEqualTo(414);

        Api.Answer bigHeader = api.send(api.request("/v1/payments")
                .header("X-Padding", "h".repeat(20_000))
                .GET()
                .build());
        assertThat(bigHeader.status()).isEqualTo(431);
        assertThat(bigHeader.body().get("type").asText()).isEqualTo("/problems/headers-too-large");
    }

    /** Regression (found by HttpFuzzTest): Jetty wrote its error body only for GET, POST and HEAD. */
    @ParameterizedTest
    @ValueSource(strings = {"GET", "POST", "DELETE", "PATCH", "PUT"})
    void anAmbiguousPathIsABadRequestProblemWhateverTheMethod(String method) {
        Api.Answer a = api.send(
                method, "/v1/webhook_endpoints/a%2Fb", "application/json", "{}".getBytes(StandardCharsets.UTF_8));

        assertThat(a.status()).isEqualTo(400);
        assertThat(a.contentType()).startsWith("application/problem+json");
        assertThat(a.body().get("type").asText()).isEqualTo("/problems/bad-request");
    }

    /** A 404 repeats a well-formed id, and nothing else a client put in the URL (a pasted secret, markup). */
    @Test
    void aNotFoundProblemEchoesOnlyWellFormedIds() {
        Api.Answer wellFormed = api.get("/v1/payments/pay_0000000000000000000000000x");
        assertThat(wellFormed.status()).isEqualTo(404);
        assertThat(wellFormed.body().get("detail").asText())
                .isEqualTo("No payment 'pay_0000000000000000000000000x' in this account.");

        for (String path : List.of(
                "/v1/payments/" + server.apiKey(),
                "/v1/webhook_endpoints/%3Cscript%3E",
                "/v1/jobs/whsec_c2VjcmV0",
                "/v1/events/evt_%22onerror%3D",
                "/v1/deliveries/" + server.otherApiKey())) {
            Api.Answer a = api.get(path);
            assertThat(a.status()).as(path).isEqualTo(404);
            assertThat(a.body().get("detail").asText()).as(path).endsWith("with that id in this account.");
            assertThat(a.raw().body())
                    .doesNotContain(server.apiKey())
                    .doesNotContain(server.otherApiKey())
                    .doesNotContain("<script>")
                    .doesNotContain("whsec_");
        }
    }
}
