package dev.retrysafe.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Two accounts on one server: every route of the API, called by one account with the other's
 * ids and idempotency keys, answers {@code 404} (or acts on the caller's own data only), leaks
 * nothing of the other account, and changes nothing of it.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TenantIsolationTest {

    private static final Duration DEADLINE = Duration.ofSeconds(20);
    /** A marker in the victim's data: it must never show in the intruder's answers. */
    private static final String SECRET_MARK = "victim-only-" + UUID.randomUUID();

    private TestServer server;
    private Api victim;
    private Api intruder;
    private String paymentKey;
    private final String refundKey = UUID.randomUUID().toString();
    private final String endpointKey = UUID.randomUUID().toString();
    private final String reportKey = UUID.randomUUID().toString();
    private String payment;
    private String refund;
    private String endpoint;
    private String endpointSecret;
    private String event;
    private String delivery;
    private String job;

    @BeforeAll
    void start() {
        server = TestServer.h2().loopbackWebhooks(List.of(Duration.ZERO)).start();
        victim = Api.of(server);
        intruder = new Api(server.baseUri(), server.otherApiKey());

        paymentKey = UUID.randomUUID().toString();
        payment = created(victim.post("/v1/payments", paymentBody(), paymentKey))
                .get("id")
                .asText();
        refund = created(victim.post("/v1/refunds", "{\"payment_id\": \"" + payment + "\", \"amount\": 5}", refundKey))
                .get("id")
                .asText();
        JsonNode ep = created(victim.post("/v1/webhook_endpoints", endpointBody(), endpointKey));
        endpoint = ep.get("id").asText();
        endpointSecret = ep.get("secret").asText();
        created(victim.post("/v1/payments", paymentBody()));
        event = victim.get("/v1/events?limit=1")
                .body()
                .get("data")
                .get(0)
                .get("id")
                .asText();
        delivery = await().atMost(DEADLINE)
                .until(
                        () -> victim.get("/v1/webhook_endpoints/" + endpoint + "/deliveries")
                                .body()
                                .get("data"),
                        d -> !d.isEmpty())
                .get(0)
                .get("id")
                .asText();
        Api.Answer report = victim.post("/v1/reports", "{\"kind\": \"payments_csv\"}", reportKey);
        assertThat(report.status()).isEqualTo(202);
        job = report.body().get("id").asText();
        await().atMost(DEADLINE)
                .until(() -> victim.get("/v1/jobs/" + job)
                        .body()
                        .get("status")
                        .asText()
                        .equals("succeeded"));
    }

    @AfterAll
    void stop() {
        server.close();
    }

    private static String paymentBody() {
        return "{\"amount\": 4321, \"currency\": \"eur\", \"description\": \"" + SECRET_MARK + "\"}";
    }

    private static String endpointBody() {
        return "{\"url\": \"http://127.0.0.1:9/victim\", \"event_types\": [\"*\"], \"description\": \"" + SECRET_MARK
                + "\"}";
    }

    private static JsonNode created(Api.Answer a) {
        assertThat(a.status()).as(a.raw().body()).isIn(200, 201);
        return a.body();
    }

    /** Every route that names one of the victim's resources, as the intruder calls it. */
    Stream<Arguments> routesWithTheVictimsIds() {
        String json = "application/json";
        return Stream.of(
                        Arguments.of("GET", "/v1/payments/" + payment, null),
                        Arguments.of("HEAD", "/v1/payments/" + payment, null),
                        Arguments.of("GET", "/v1/refunds/" + refund, null),
                        Arguments.of("POST", "/v1/refunds", "{\"payment_id\": \"" + payment + "\", \"amount\": 1}"),
                        Arguments.of("GET", "/v1/events/" + event, null),
                        Arguments.of("GET", "/v1/events/" + event + "/deliveries", null),
                        Arguments.of("GET", "/v1/jobs/" + job, null),
                        Arguments.of("DELETE", "/v1/jobs/" + job, null),
                        Arguments.of("GET", "/v1/jobs/" + job + "/result", null),
                        Arguments.of("GET", "/v1/webhook_endpoints/" + endpoint, null),
                        Arguments.of(
                                "PATCH",
                                "/v1/webhook_endpoints/" + endpoint,
                                "{\"url\": \"http://127.0.0.1:9/intruder\"}"),
                        Arguments.of("DELETE", "/v1/webhook_endpoints/" + endpoint, null),
                        Arguments.of("GET", "/v1/webhook_endpoints/" + endpoint + "/secret", null),
                        Arguments.of("POST", "/v1/webhook_endpoints/" + endpoint + "/rotate_secret", ""),
                        Arguments.of("POST", "/v1/webhook_endpoints/" + endpoint + "/enable", ""),
                        Arguments.of("POST", "/v1/webhook_endpoints/" + endpoint + "/pause", ""),
                        Arguments.of("POST", "/v1/webhook_endpoints/" + endpoint + "/resume", ""),
                        Arguments.of(
                                "POST",
                                "/v1/webhook_endpoints/" + endpoint + "/recover",
                                "{\"since\": \"2020-01-01T00:00:00Z\"}"),
                        Arguments.of("GET", "/v1/webhook_endpoints/" + endpoint + "/deliveries", null),
                        Arguments.of("GET", "/v1/deliveries/" + delivery, null),
                        Arguments.of("POST", "/v1/deliveries/" + delivery + "/retry", ""))
                .map(a -> Arguments.of(a.get()[0], a.get()[1], a.get()[2], json));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("routesWithTheVictimsIds")
    void theOtherAccountsIdsAreNotFoundAndLeakNothing(String method, String path, String body, String contentType) {
        HttpRequestBody send = new HttpRequestBody(body);
        Api.Answer a = method.equals("POST")
                ? intruder.post(path, send.text(), UUID.randomUUID().toString())
                : intruder.send(method, path, send.text().isEmpty() ? null : contentType, send.bytes());

        assertThat(a.status()).as(method + " " + path + " -> " + a.raw().body()).isEqualTo(404);
        if (!method.equals("HEAD")) {
            assertThat(a.body().get("type").asText()).isEqualTo("/problems/not-found");
        }
        assertThat(a.raw().body())
                .doesNotContain(SECRET_MARK)
                .doesNotContain(endpointSecret)
                .doesNotContain("4321");
    }

    @Test
    void listsShowOnlyTheCallersOwnData() {
        for (String list : List.of(
                "/v1/payments",
                "/v1/refunds",
                "/v1/events",
                "/v1/webhook_endpoints",
                "/v1/jobs",
                "/v1/webhook_attempt_stats")) {
            Api.Answer a = intruder.get(list + "?limit=100");
            assertThat(a.status()).isEqualTo(200);
            assertThat(a.raw().body())
                    .as(list)
                    .doesNotContain(payment)
                    .doesNotContain(refund)
                    .doesNotContain(endpoint)
                    .doesNotContain(event)
                    .doesNotContain(job)
                    .doesNotContain(SECRET_MARK);
        }
        // a cursor naming the victim's object pages nothing of the victim's either
        Api.Answer cursor = intruder.get("/v1/payments?starting_after=" + payment);
        assertThat(cursor.status()).isIn(200, 400, 404);
        assertThat(cursor.raw().body()).doesNotContain(SECRET_MARK);
    }

    @Test
    void theVictimsIdempotencyKeyIsANewKeyForTheIntruder() {
        // same key and same body: a payment of the intruder's own, not a replay of the victim's
        Api.Answer same = intruder.post("/v1/payments", paymentBody(), paymentKey);
        assertThat(same.status()).as(same.raw().body()).isEqualTo(201);
        assertThat(same.body().get("id").asText()).isNotEqualTo(payment);
        assertThat(same.header("Idempotent-Replayed")).isNull();

        // same key, another body: no 422 that would reveal the key is in use elsewhere
        Api.Answer other = intruder.post("/v1/payments", "{\"amount\": 17, \"currency\": \"eur\"}", paymentKey);
        assertThat(other.status()).as(other.raw().body()).isIn(201, 422);
        assertThat(other.raw().body()).doesNotContain(SECRET_MARK).doesNotContain(payment);
        if (other.status() == 422) {
            // it may only conflict with the intruder's own first use of the key, just above
            assertThat(other.raw().body()).doesNotContain("4321");
        }

        // and the victim's replay is still the victim's own answer
        Api.Answer replay = victim.post("/v1/payments", paymentBody(), paymentKey);
        assertThat(replay.body().get("id").asText()).isEqualTo(payment);
    }

    @Test
    void theVictimsKeysOnEveryOtherKeyedRouteAreNewKeysForTheIntruder() {
        String ownPayment = created(intruder.post("/v1/payments", "{\"amount\": 600, \"currency\": \"eur\"}"))
                .get("id")
                .asText();
        // a refund of the intruder's own payment under the key of the victim's refund
        Api.Answer refundAnswer =
                intruder.post("/v1/refunds", "{\"payment_id\": \"" + ownPayment + "\", \"amount\": 5}", refundKey);
        assertThat(refundAnswer.status()).as(refundAnswer.raw().body()).isEqualTo(201);
        assertThat(refundAnswer.body().get("id").asText()).isNotEqualTo(refund);
        assertThat(refundAnswer.body().get("payment_id").asText()).isEqualTo(ownPayment);
        // the victim's exact endpoint body under the victim's key: a new endpoint with a new secret
        Api.Answer endpointAnswer = intruder.post("/v1/webhook_endpoints", endpointBody(), endpointKey);
        assertThat(endpointAnswer.status()).as(endpointAnswer.raw().body()).isEqualTo(201);
        assertThat(endpointAnswer.body().get("id").asText()).isNotEqualTo(endpoint);
        assertThat(endpointAnswer.raw().body()).doesNotContain(endpointSecret);
        // a report under the victim's key: a job of the intruder's own, over the intruder's payments
        Api.Answer reportAnswer = intruder.post("/v1/reports", "{\"kind\": \"payments_csv\"}", reportKey);
        assertThat(reportAnswer.status()).as(reportAnswer.raw().body()).isEqualTo(202);
        String ownJob = reportAnswer.body().get("id").asText();
        assertThat(ownJob).isNotEqualTo(job);
        for (Api.Answer a : List.of(refundAnswer, endpointAnswer, reportAnswer)) {
            assertThat(a.header("Idempotent-Replayed")).as(a.raw().body()).isNull();
        }
        await().atMost(DEADLINE)
                .until(() -> intruder.get("/v1/jobs/" + ownJob)
                        .body()
                        .get("status")
                        .asText()
                        .equals("succeeded"));
        String csv = intruder.get("/v1/jobs/" + ownJob + "/result").raw().body();
        assertThat(csv).contains(ownPayment).doesNotContain(payment).doesNotContain(SECRET_MARK);
    }

    @Test
    void aCursorNamingTheVictimsObjectPagesOnlyTheCallersOwn() {
        String ownPayment = created(intruder.post("/v1/payments", "{\"amount\": 700, \"currency\": \"eur\"}"))
                .get("id")
                .asText();
        created(intruder.post("/v1/refunds", "{\"payment_id\": \"" + ownPayment + "\", \"amount\": 1}"));
        String ownEndpoint = created(intruder.post(
                        "/v1/webhook_endpoints",
                        "{\"url\": \"http://127.0.0.1:9/intruder\", \"event_types\": [\"*\"]}"))
                .get("id")
                .asText();
        String ownEvent = intruder.get("/v1/events?limit=1")
                .body()
                .get("data")
                .get(0)
                .get("id")
                .asText();
        Map<String, String> cursors = new LinkedHashMap<>();
        cursors.put("/v1/payments", payment);
        cursors.put("/v1/refunds", refund);
        cursors.put("/v1/events", event);
        cursors.put("/v1/webhook_endpoints", endpoint);
        cursors.put("/v1/jobs", job);
        cursors.put("/v1/events/" + ownEvent + "/deliveries", delivery);
        cursors.put("/v1/webhook_endpoints/" + ownEndpoint + "/deliveries", delivery);
        for (Map.Entry<String, String> c : cursors.entrySet()) {
            Set<String> own = new HashSet<>();
            intruder.get(c.getKey() + "?limit=100")
                    .body()
                    .get("data")
                    .forEach(n -> own.add(n.get("id").asText()));
            Api.Answer page = intruder.get(c.getKey() + "?limit=100&starting_after=" + c.getValue());
            String what =
                    c.getKey() + " after " + c.getValue() + " -> " + page.raw().body();
            assertThat(page.status()).as(what).isIn(200, 400, 404);
            assertThat(page.raw().body()).as(what).doesNotContain(SECRET_MARK).doesNotContain("4321");
            if (page.status() == 200) {
                Set<String> paged = new HashSet<>();
                page.body().get("data").forEach(n -> paged.add(n.get("id").asText()));
                assertThat(own).as(what).containsAll(paged);
            } else {
                assertThat(page.body().get("type").asText()).as(what).startsWith("/problems/");
            }
        }
    }

    @Test
    void theIntrudersAttemptsChangedNothingOfTheVictims() {
        // run every attempt first (the parameterized test may run in any order)
        routesWithTheVictimsIds().forEach(a -> {
            Object[] args = a.get();
            theOtherAccountsIdsAreNotFoundAndLeakNothing(
                    (String) args[0], (String) args[1], (String) args[2], (String) args[3]);
        });

        JsonNode ep = victim.get("/v1/webhook_endpoints/" + endpoint).body();
        assertThat(ep.get("url").asText()).isEqualTo("http://127.0.0.1:9/victim");
        assertThat(victim.get("/v1/webhook_endpoints/" + endpoint + "/secret")
                        .body()
                        .get("secret")
                        .asText())
                .isEqualTo(endpointSecret);
        assertThat(ep.get("previous_secret_expires_at").isNull()).isTrue();
        assertThat(victim.get("/v1/jobs/" + job).body().get("status").asText()).isEqualTo("succeeded");
        assertThat(victim.get("/v1/jobs/" + job + "/result").status()).isEqualTo(200);
        JsonNode refunds = victim.get("/v1/refunds?limit=100").body().get("data");
        List<String> refundIds = new ArrayList<>();
        refunds.forEach(r -> refundIds.add(r.get("id").asText()));
        assertThat(refundIds).containsExactly(refund);
        assertThat(victim.get("/v1/payments/" + payment)
                        .body()
                        .get("amount_refunded")
                        .asLong())
                .isEqualTo(5);
    }

    /** A request body, possibly absent. */
    private record HttpRequestBody(String text) {
        HttpRequestBody {
            text = text == null ? "" : text;
        }

        byte[] bytes() {
            return text.getBytes(StandardCharsets.UTF_8);
        }
    }
}
