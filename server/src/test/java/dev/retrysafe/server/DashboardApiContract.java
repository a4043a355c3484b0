package dev.retrysafe.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The routes the dashboard reads: {@code GET /v1/jobs}, {@code GET /v1/events/{id}/deliveries},
 * the {@code health} of every webhook endpoint answer and {@code GET /v1/webhook_attempt_stats}.
 * One payment is delivered, before the tests, to a receiver on 127.0.0.1 that answers {@code 500}
 * with a schedule of two attempts, so the account has exactly one failed delivery with two
 * failed attempts; the second account has nothing. Waits are bounded and wait for states.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class DashboardApiContract {

    private static final Duration WAIT = Duration.ofSeconds(20);

    private ScriptedReceiver receiver;
    private TestServer server;
    private Api api;
    private Api other;
    private String endpointId;
    private String eventId;

    /** A builder of the server under test, on its database. */
    abstract TestServer.Builder server();

    /** Runs after the server stopped, e.g. to drop its database. */
    void afterServerStopped() {}

    @BeforeAll
    void start() throws Exception {
        receiver = ScriptedReceiver.start(500, "down for maintenance");
        server = server().loopbackWebhooks(List.of(Duration.ZERO, Duration.ofMillis(50)))
                .start();
        api = Api.of(server);
        other = new Api(server.baseUri(), server.otherApiKey());
        Api.Answer endpoint = api.post(
                "/v1/webhook_endpoints",
                "{\"url\": \"" + receiver.url() + "\", \"event_types\": [\"payment.succeeded\"]}");
        assertThat(endpoint.status()).as(endpoint.raw().body()).isEqualTo(201);
        endpointId = endpoint.body().get("id").asText();
        Api.Answer payment =
                api.post("/v1/payments", "{\"amount\": 500, \"currency\": \"eur\", \"description\": \"x\"}");
        assertThat(payment.status()).as(payment.raw().body()).isEqualTo(201);
        await().atMost(WAIT).until(() -> {
            JsonNode page = api.get("/v1/webhook_endpoints/" + endpointId + "/deliveries")
                    .body()
                    .get("data");
            return page.size() == 1 && page.get(0).get("status").asText().equals("failed");
        });
        eventId = api.get("/v1/events?type=payment.succeeded")
                .body()
                .get("data")
                .get(0)
                .get("id")
                .asText();
    }

    @AfterAll
    void stop() {
        try {
            if (server != null) {
                server.close();
            }
            if (receiver != null) {
                receiver.close();
            }
        } finally {
            afterServerStopped();
        }
    }

    // --- health -------------------------------------------------------------------------------

    @Test
    void everyEndpointAnswerCarriesTheHealthOfTheLast24Hours() {
        JsonNode one = api.get("/v1/webhook_endpoints/" + endpointId).body();
        JsonNode listed = api.get("/v1/webhook_endpoints").body().get("data").get(0);
        JsonNode patched = patch("/v1/webhook_endpoints/" + endpointId, "{\"description\": \"orders\"}")
                .body();

        for (JsonNode e : List.of(one, listed, patched)) {
            JsonNode h = e.get("health");
            assertThat(h.get("window_hours").asInt()).isEqualTo(24);
            assertThat(h.get("attempts").asInt()).isEqualTo(2);
            assertThat(h.get("succeeded").asInt()).isZero();
            assertThat(h.get("success_rate").isNumber()).isTrue();
            assertThat(h.get("success_rate").asDouble()).isZero();
            assertThat(h.get("last_outcome").asText()).isEqualTo("http_error");
            assertThat(Instant.parse(h.get("last_attempt_at").asText()))
                    .isBetween(Instant.now().minus(Duration.ofMinutes(5)), Instant.now());
        }
        assertThat(listed.get("id").asText()).isEqualTo(endpointId);
    }

    @Test
    void anEndpointWithoutAttemptsHasAnEmptyHealthInEveryAnswer() {
        // given an endpoint that nothing was sent to
        Api.Answer created = other.post(
                "/v1/webhook_endpoints",
                "{\"url\": \"" + receiver.url() + "\", \"event_types\": [\"refund.created\"]}");
        String id = created.body().get("id").asText();

        List<JsonNode> answers = List.of(
                created.body(),
                other.get("/v1/webhook_endpoints/" + id).body(),
                other.get("/v1/webhook_endpoints").body().get("data").get(0),
                patch(other, "/v1/webhook_endpoints/" + id, "{\"enabled\": false}")
                        .body(),
                other.post("/v1/webhook_endpoints/" + id + "/enable", "").body(),
                other.post("/v1/webhook_endpoints/" + id + "/rotate_secret", "").body());

        for (JsonNode e : answers) {
            assertThat(e.get("health").toString())
                    .isEqualTo("{\"window_hours\":24,\"attempts\":0,\"succeeded\":0,"
                            + "\"success_rate\":null,\"last_attempt_at\":null,\"last_outcome\":null}");
        }
        assertThat(other.send("DELETE", "/v1/webhook_endpoints/" + id, null, new byte[0])
                        .status())
                .isEqualTo(200);
    }

    // --- an event's deliveries ----------------------------------------------------------------

    @Test
    void anEventsDeliveriesAreListedAsTheEndpointsDeliveriesShowThem() {
        Api.Answer a = api.get("/v1/events/" + eventId + "/deliveries");

        assertThat(a.status()).as(a.raw().body()).isEqualTo(200);
        assertThat(a.body().get("object").asText()).isEqualTo("list");
        assertThat(a.body().get("has_more").asBoolean()).isFalse();
        JsonNode delivery = a.body().get("data").get(0);
        assertThat(a.body().get("data").size()).isEqualTo(1);
        assertThat(delivery)
                .isEqualTo(api.get("/v1/webhook_endpoints/" + endpointId + "/deliveries")
                        .body()
                        .get("data")
                        .get(0));
        assertThat(delivery.get("event_id").asText()).isEqualTo(eventId);
        assertThat(delivery.get("attempt_count").asInt()).isEqualTo(2);
        Api.Answer page = api.get("/v1/events/" + eventId + "/deliveries?limit=1&starting_after="
                + delivery.get("id").asText());
        assertThat(page.body().get("data").size()).isZero();
    }

    @Test
    void anotherAccountsOrAnUnknownEventIsNotFound() {
        for (Api.Answer a : List.of(
                other.get("/v1/events/" + eventId + "/deliveries"),
                api.get("/v1/events/evt_00000000000000000000000000/deliveries"),
                api.get("/v1/events/not-an-event/deliveries"))) {
            assertThat(a.status()).as(a.raw().uri().toString()).isEqualTo(404);
            assertThat(a.contentType()).startsWith("application/problem+json");
            assertThat(a.body().get("type").asText()).isEqualTo("/problems/not-found");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"limit=0", "limit=101", "limit=x", "starting_after=evt_x", "starting_after=we_x"})
    void badPagingOfAnEventsDeliveriesIsAValidationProblem(String query) {
        Api.Answer a = api.get("/v1/events/" + eventId + "/deliveries?" + query);

        assertThat(a.status()).as(a.raw().body()).isEqualTo(400);
        assertThat(a.body().get("type").asText()).isEqualTo("/problems/validation-failed");
    }

    // --- attempt statistics -------------------------------------------------------------------

    @Test
    void attemptStatsCountTheAccountsAttemptsInEveryHourOldestFirst() {
        Instant before = Instant.now();
        JsonNode stats = api.get("/v1/webhook_attempt_stats").body();

        assertThat(stats.get("object").asText()).isEqualTo("webhook_attempt_stats");
        assertThat(stats.get("bucket_seconds").asInt()).isEqualTo(3600);
        JsonNode buckets = stats.get("buckets");
        assertThat(buckets.size()).isEqualTo(24);
        Instant from = Instant.parse(stats.get("from").asText());
        assertThat(Instant.parse(stats.get("to").asText())).isEqualTo(from.plus(Duration.ofHours(24)));
        assertThat(from.getEpochSecond() % 3600).as("whole hours").isZero();
        assertThat(Instant.parse(stats.get("to").asText())).isAfter(before);
        long httpErrors = 0;
        for (int i = 0; i < buckets.size(); i++) {
            assertThat(Instant.parse(buckets.get(i).get("start").asText())).isEqualTo(from.plus(Duration.ofHours(i)));
            httpErrors += buckets.get(i).get("outcomes").path("http_error").asLong();
        }
        assertThat(httpErrors).isEqualTo(2);
        assertThat(other.get("/v1/webhook_attempt_stats?hours=3").body().get("buckets"))
                .hasSize(3)
                .allSatisfy(b -> assertThat(b.get("outcomes").toString()).isEqualTo("{}"));
        assertThat(api.get("/v1/webhook_attempt_stats?hours=168").body().get("buckets"))
                .hasSize(168);
        assertThat(api.get("/v1/webhook_attempt_stats?hours=1").body().get("buckets"))
                .hasSize(1);
    }

    @ParameterizedTest
    @ValueSource(strings = {"0", "169", "-1", "1.5", "abc", "", "99999999999"})
    void attemptStatsRefuseHoursOutsideOneTo168NamingTheParameter(String hours) {
        Api.Answer a = api.get("/v1/webhook_attempt_stats?hours=" + hours);

        assertThat(a.status()).as(a.raw().body()).isEqualTo(400);
        assertThat(a.contentType()).startsWith("application/problem+json");
        assertThat(a.body().get("errors").get(0).get("field").asText()).isEqualTo("hours");
    }

    // --- jobs ---------------------------------------------------------------------------------

    @Test
    void jobsAreListedNewestFirstEachAsGetShowsIt() {
        Api fresh = new Api(server.baseUri(), server.otherApiKey());
        List<String> made = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            Api.Answer a = fresh.post("/v1/reports", "{\"kind\": \"payments_csv\"}");
            assertThat(a.status()).as(a.raw().body()).isEqualTo(202);
            made.add(a.body().get("id").asText());
        }
        await().atMost(WAIT)
                .until(() -> made.stream()
                        .allMatch(id -> fresh.get("/v1/jobs/" + id)
                                .body()
                                .get("status")
                                .asText()
                                .equals("succeeded")));

        List<JsonNode> seen = new ArrayList<>();
        String cursor = null;
        boolean more = true;
        while (more) {
            Api.Answer page = fresh.get("/v1/jobs?limit=2" + (cursor == null ? "" : "&starting_after=" + cursor));
            assertThat(page.status()).as(page.raw().body()).isEqualTo(200);
            assertThat(page.body().get("object").asText()).isEqualTo("list");
            assertThat(page.body().get("data").size()).isLessThanOrEqualTo(2);
            for (JsonNode job : page.body().get("data")) {
                seen.add(job);
                cursor = job.get("id").asText();
            }
            more = page.body().get("has_more").asBoolean();
        }

        assertThat(seen)
                .extracting(j -> j.get("id").asText())
                .containsSubsequence(made.reversed())
                .doesNotHaveDuplicates();
        for (JsonNode job : seen) {
            assertThat(job)
                    .isEqualTo(fresh.get("/v1/jobs/" + job.get("id").asText()).body());
        }
        assertThat(api.get("/v1/jobs?limit=100").body().get("data").toString()).doesNotContain(made.getFirst());
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "limit=0",
                "limit=101",
                "limit=x",
                "starting_after=pay_x",
                "starting_after=job_AAAAAAAAAAAAAAAAAAAAAAAA"
            })
    void badPagingOfJobsIsAValidationProblem(String query) {
        Api.Answer a = api.get("/v1/jobs?" + query);

        assertThat(a.status()).as(a.raw().body()).isEqualTo(400);
        assertThat(a.contentType()).startsWith("application/problem+json");
        assertThat(a.body().get("type").asText()).isEqualTo("/problems/validation-failed");
        assertThat(a.body().get("errors").get(0).get("field").asText())
                .isEqualTo(query.substring(0, query.indexOf('=')));
    }

    private Api.Answer patch(String path, String json) {
        return patch(api, path, json);
    }

    private static Api.Answer patch(Api client, String path, String json) {
        return client.send("PATCH", path, "application/json", json.getBytes(StandardCharsets.UTF_8));
    }
}
