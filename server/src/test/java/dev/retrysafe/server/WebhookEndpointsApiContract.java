package dev.retrysafe.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The webhook endpoint API, with the shipped SSRF settings (https only,
 * no private targets). Endpoints point at a public address literal, so the guard needs no DNS;
 * no test here makes an event, so nothing is ever sent there.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class WebhookEndpointsApiContract {

    private static final String PUBLIC_URL = "https://1.1.1.1/hooks";

    private TestServer server;
    private Api api;
    private Api other;

    /** Starts the server under test (with the shipped webhook settings). */
    abstract TestServer startServer();

    /** Runs after the server stopped, e.g. to drop its database. */
    void afterServerStopped() {}

    @BeforeAll
    void start() {
        server = startServer();
        api = Api.of(server);
        other = new Api(server.baseUri(), server.otherApiKey());
    }

    @AfterAll
    void stop() {
        try {
            server.close();
        } finally {
            afterServerStopped();
        }
    }

    private JsonNode create(Api client, String body) {
        Api.Answer a = client.post("/v1/webhook_endpoints", body);
        assertThat(a.status()).as(a.raw().body()).isEqualTo(201);
        return a.body();
    }

    private JsonNode createDefault(Api client) {
        return create(client, "{\"url\": \"" + PUBLIC_URL + "\", \"event_types\": [\"payment.succeeded\"]}");
    }

    private Api.Answer patch(Api client, String path, String json) {
        return client.send("PATCH", path, "application/json", json.getBytes(StandardCharsets.UTF_8));
    }

    private Api.Answer delete(Api client, String path) {
        return client.send("DELETE", path, null, new byte[0]);
    }

    /** Every response body in the idempotency table, read with JDBC as UTF-8 text. */
    private List<String> storedAnswers() throws java.sql.SQLException {
        List<String> bodies = new ArrayList<>();
        try (var c = java.sql.DriverManager.getConnection(
                        server.config().database().jdbcUrl(server.config().dataDir()),
                        server.config().database().user(),
                        server.config().database().password());
                var s = c.createStatement();
                var rs = s.executeQuery("SELECT response_body FROM idempotency_keys WHERE response_body IS NOT NULL")) {
            while (rs.next()) {
                bodies.add(new String(rs.getBytes(1), StandardCharsets.UTF_8));
            }
        }
        return bodies;
    }

    @Test
    void createAnswersTheEndpointWithItsSecretAndLocation() {
        Api.Answer a = api.post(
                "/v1/webhook_endpoints",
                "{\"url\": \"" + PUBLIC_URL + "\","
                        + " \"event_types\": [\"payment.succeeded\", \"refund.created\"], \"description\": \"orders\"}");

        assertThat(a.status()).as(a.raw().body()).isEqualTo(201);
        JsonNode e = a.body();
        assertThat(e.get("id").asText()).matches("we_[0-9a-z]{26}");
        assertThat(e.get("object").asText()).isEqualTo("webhook_endpoint");
        assertThat(e.get("url").asText()).isEqualTo(PUBLIC_URL);
        assertThat(e.get("description").asText()).isEqualTo("orders");
        assertThat(e.get("event_types").toString()).isEqualTo("[\"payment.succeeded\",\"refund.created\"]");
        assertThat(e.get("enabled").asBoolean()).isTrue();
        assertThat(e.get("secret").asText()).startsWith("whsec_");
        assertThat(a.header("Location"))
                .isEqualTo("/v1/webhook_endpoints/" + e.get("id").asText());

        Api.Answer read = api.get("/v1/webhook_endpoints/" + e.get("id").asText());
        assertThat(read.status()).isEqualTo(200);
        assertThat(read.body().get("url").asText()).isEqualTo(PUBLIC_URL);
        assertThat(read.body().has("secret"))
                .as("the secret is only shown on creation and by .../secret")
                .isFalse();

        Api.Answer secret = api.get("/v1/webhook_endpoints/" + e.get("id").asText() + "/secret");
        assertThat(secret.status()).isEqualTo(200);
        assertThat(secret.body().get("secret").asText())
                .isEqualTo(e.get("secret").asText());
    }

    @Test
    void aRetriedCreateWithTheSameKeyReplaysTheFirstAnswerAndCreatesNothing() {
        String body =
                "{\"url\": \"" + PUBLIC_URL + "\", \"event_types\": [\"refund.created\"], \"description\": \"once\"}";
        String key = java.util.UUID.randomUUID().toString();

        Api.Answer first = api.post("/v1/webhook_endpoints", body, key);
        Api.Answer again = api.post("/v1/webhook_endpoints", body, key);

        assertThat(first.status()).isEqualTo(201);
        assertThat(again.status()).isEqualTo(201);
        assertThat(again.header("Idempotent-Replayed")).isEqualTo("true");
        assertThat(again.body()).isEqualTo(first.body());
        long made = 0;
        for (JsonNode e : api.get("/v1/webhook_endpoints?limit=100").body().get("data")) {
            made += e.get("description").asText().equals("once") ? 1 : 0;
        }
        assertThat(made).isEqualTo(1);
    }

    @Test
    void aRetriedRotationWithTheSameKeyRotatesOnce() {
        String id = createDefault(api).get("id").asText();
        String key = java.util.UUID.randomUUID().toString();

        Api.Answer first = api.post("/v1/webhook_endpoints/" + id + "/rotate_secret", "", key);
        Api.Answer again = api.post("/v1/webhook_endpoints/" + id + "/rotate_secret", "", key);

        assertThat(first.status()).isEqualTo(200);
        assertThat(again.body().get("secret")).isEqualTo(first.body().get("secret"));
        assertThat(api.get("/v1/webhook_endpoints/" + id + "/secret").body().get("secret"))
                .isEqualTo(first.body().get("secret"));
    }

    /** Issue 31: a replay handed out the original secret, after rotation and deletion too; the table held it. */
    @Test
    void aReplayedCreateOrRotationCarriesTheCurrentSecretAndTheStoredAnswerNone() throws Exception {
        // given: an endpoint created under a key, then its secret rotated under another key
        String body = "{\"url\": \"" + PUBLIC_URL + "\", \"event_types\": [\"payment.succeeded\"]}";
        String createKey = java.util.UUID.randomUUID().toString();
        String rotateKey = java.util.UUID.randomUUID().toString();
        Api.Answer created = api.post("/v1/webhook_endpoints", body, createKey);
        assertThat(created.status()).as(created.raw().body()).isEqualTo(201);
        String id = created.body().get("id").asText();
        String rotatePath = "/v1/webhook_endpoints/" + id + "/rotate_secret";
        Api.Answer rotated = api.post(rotatePath, "", rotateKey);
        assertThat(rotated.status()).as(rotated.raw().body()).isEqualTo(200);
        String original = created.body().get("secret").asText();
        String current = rotated.body().get("secret").asText();
        assertThat(current).startsWith("whsec_").isNotEqualTo(original);

        // when: both are retried within the rotation's grace period (the original still signs)
        Api.Answer createReplay = api.post("/v1/webhook_endpoints", body, createKey);
        Api.Answer rotateReplay = api.post(rotatePath, "", rotateKey);

        // then: each replays its first answer with the secret that signs now in place of the one it had
        assertThat(createReplay.status()).isEqualTo(201);
        assertThat(createReplay.header("Idempotent-Replayed")).isEqualTo("true");
        assertThat(createReplay.header("Location")).isEqualTo("/v1/webhook_endpoints/" + id);
        assertThat(createReplay.raw().body()).doesNotContain(original);
        assertThat(createReplay.body()).isEqualTo(((ObjectNode) created.body().deepCopy()).put("secret", current));
        assertThat(rotateReplay.header("Idempotent-Replayed")).isEqualTo("true");
        assertThat(rotateReplay.body()).isEqualTo(rotated.body());
        assertThat(storedAnswers())
                .as("stored answers, of this test and every other of the class")
                .isNotEmpty()
                .noneMatch(stored -> stored.contains(original) || stored.contains(current))
                .noneMatch(stored -> stored.contains("whsec_"));

        // when: the endpoint is deleted, a replay hands out no secret at all
        assertThat(delete(api, "/v1/webhook_endpoints/" + id).status()).isEqualTo(200);
        Api.Answer afterDelete = api.post("/v1/webhook_endpoints", body, createKey);
        assertThat(afterDelete.status()).isEqualTo(201);
        assertThat(afterDelete.header("Idempotent-Replayed")).isEqualTo("true");
        assertThat(afterDelete.body().get("id").asText()).isEqualTo(id);
        assertThat(afterDelete.body().get("secret").isNull())
                .as(afterDelete.raw().body())
                .isTrue();
        assertThat(api.post(rotatePath, "", rotateKey).body().get("secret").isNull())
                .isTrue();
    }

    @Test
    void listsEndpointsNewestFirstWithCursorPagination() {
        Api fresh = new Api(server.baseUri(), server.otherApiKey());
        List<String> made = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            made.add(createDefault(fresh).get("id").asText());
        }
        List<String> seen = new ArrayList<>();
        String cursor = null;
        boolean more = true;
        while (more) {
            Api.Answer page =
                    fresh.get("/v1/webhook_endpoints?limit=2" + (cursor == null ? "" : "&starting_after=" + cursor));
            assertThat(page.status()).isEqualTo(200);
            assertThat(page.body().get("data").size()).isLessThanOrEqualTo(2);
            for (JsonNode e : page.body().get("data")) {
                seen.add(e.get("id").asText());
                cursor = e.get("id").asText();
            }
            more = page.body().get("has_more").asBoolean();
        }
        assertThat(seen).containsSubsequence(made.reversed());
        assertThat(seen).doesNotHaveDuplicates();
    }

    @Test
    void patchChangesOnlyTheGivenFieldsAndDisablesAndEnables() {
        String id = createDefault(api).get("id").asText();

        Api.Answer changed = patch(
                api,
                "/v1/webhook_endpoints/" + id,
                "{\"description\": \"new\", \"event_types\": [\"*\"], \"url\": \"https://8.8.8.8/other\"}");
        assertThat(changed.status()).as(changed.raw().body()).isEqualTo(200);
        assertThat(changed.body().get("description").asText()).isEqualTo("new");
        assertThat(changed.body().get("event_types").toString()).isEqualTo("[\"*\"]");
        assertThat(changed.body().get("url").asText()).isEqualTo("https://8.8.8.8/other");

        Api.Answer disabled = patch(api, "/v1/webhook_endpoints/" + id, "{\"enabled\": false}");
        assertThat(disabled.status()).isEqualTo(200);
        assertThat(disabled.body().get("enabled").asBoolean()).isFalse();
        assertThat(disabled.body().get("disabled_reason").asText()).isEqualTo("manual");
        assertThat(disabled.body().get("description").asText()).isEqualTo("new");

        Api.Answer enabled = api.post("/v1/webhook_endpoints/" + id + "/enable", "");
        assertThat(enabled.status()).as(enabled.raw().body()).isEqualTo(200);
        assertThat(enabled.body().get("enabled").asBoolean()).isTrue();
        assertThat(enabled.body().get("disabled_reason").isNull()).isTrue();
    }

    @Test
    void rateLimitIsSetOnCreateShownOnGetChangedByPatchAndRemovedWithNull() {
        JsonNode created =
                create(api, "{\"url\": \"" + PUBLIC_URL + "\", \"event_types\": [\"*\"], \"rate_limit\": 50}");
        String path = "/v1/webhook_endpoints/" + created.get("id").asText();
        assertThat(created.get("rate_limit").asInt()).isEqualTo(50);
        assertThat(api.get(path).body().get("rate_limit").asInt()).isEqualTo(50);

        Api.Answer other = patch(api, path, "{\"description\": \"rate kept\"}");
        assertThat(other.body().get("rate_limit").asInt())
                .as("a PATCH without it keeps it")
                .isEqualTo(50);
        Api.Answer raised = patch(api, path, "{\"rate_limit\": 10000}");
        assertThat(raised.status()).as(raised.raw().body()).isEqualTo(200);
        assertThat(raised.body().get("rate_limit").asInt()).isEqualTo(10_000);
        Api.Answer removed = patch(api, path, "{\"rate_limit\": null}");
        assertThat(removed.status()).as(removed.raw().body()).isEqualTo(200);
        assertThat(removed.body().get("rate_limit").isNull()).isTrue();
        assertThat(api.get(path).body().get("rate_limit").isNull()).isTrue();
        assertThat(patch(api, path, "{\"rate_limit\": 1}")
                        .body()
                        .get("rate_limit")
                        .asInt())
                .isEqualTo(1);

        JsonNode unlimited = createDefault(api);
        assertThat(unlimited.has("rate_limit")).isTrue();
        assertThat(unlimited.get("rate_limit").isNull())
                .as("no limit unless asked")
                .isTrue();
        JsonNode explicitNull =
                create(api, "{\"url\": \"" + PUBLIC_URL + "\", \"event_types\": [\"*\"], \"rate_limit\": null}");
        assertThat(explicitNull.get("rate_limit").isNull()).isTrue();
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "0",
                "-1",
                "-10000",
                "10001",
                "2147483648",
                "99999999999999999999",
                "1e3",
                "2.5",
                "10.0",
                "\"10\"",
                "true",
                "[5]",
                "{\"per_second\": 5}"
            })
    void invalidRateLimitsAnswerAValidationProblemNamingTheFieldOnCreateAndPatch(String value) {
        String id = createDefault(api).get("id").asText();
        List<Api.Answer> answers = List.of(
                api.post(
                        "/v1/webhook_endpoints",
                        "{\"url\": \"" + PUBLIC_URL + "\", \"event_types\": [\"*\"], " + "\"rate_limit\": " + value
                                + "}"),
                patch(api, "/v1/webhook_endpoints/" + id, "{\"rate_limit\": " + value + "}"));

        for (Api.Answer a : answers) {
            assertThat(a.status()).as(value + " -> " + a.raw().body()).isEqualTo(400);
            assertThat(a.contentType()).startsWith("application/problem+json");
            assertThat(a.body().get("type").asText()).isEqualTo("/problems/validation-failed");
            assertThat(a.body().get("errors")).singleElement().satisfies(e -> {
                assertThat(e.get("field").asText()).isEqualTo("rate_limit");
                assertThat(e.get("detail").asText()).contains("1 to 10000");
            });
        }
        assertThat(api.get("/v1/webhook_endpoints/" + id)
                        .body()
                        .get("rate_limit")
                        .isNull())
                .as("the refused PATCH changed nothing")
                .isTrue();
    }

    @Test
    void patchChecksANewUrlWithTheGuard() {
        String id = createDefault(api).get("id").asText();

        Api.Answer refused = patch(api, "/v1/webhook_endpoints/" + id, "{\"url\": \"https://169.254.169.254/latest\"}");

        assertThat(refused.status()).isEqualTo(422);
        assertThat(refused.body().get("type").asText()).isEqualTo("/problems/webhook-url-refused");
        assertThat(api.get("/v1/webhook_endpoints/" + id).body().get("url").asText())
                .isEqualTo(PUBLIC_URL);
    }

    @Test
    void rotationAnswersANewSecretAndKeepsTheOldOneForTheGracePeriod() {
        JsonNode created = createDefault(api);
        String id = created.get("id").asText();

        Api.Answer rotated = api.post("/v1/webhook_endpoints/" + id + "/rotate_secret", "");

        assertThat(rotated.status()).as(rotated.raw().body()).isEqualTo(200);
        String newSecret = rotated.body().get("secret").asText();
        assertThat(newSecret)
                .startsWith("whsec_")
                .isNotEqualTo(created.get("secret").asText());
        assertThat(rotated.body().get("previous_secret_expires_at").asText()).isNotEmpty();
        assertThat(api.get("/v1/webhook_endpoints/" + id + "/secret")
                        .body()
                        .get("secret")
                        .asText())
                .isEqualTo(newSecret);
    }

    @Test
    void deleteRemovesTheEndpoint() {
        String id = createDefault(api).get("id").asText();

        Api.Answer deleted = delete(api, "/v1/webhook_endpoints/" + id);

        assertThat(deleted.status()).isEqualTo(200);
        assertThat(deleted.body().get("deleted").asBoolean()).isTrue();
        assertThat(api.get("/v1/webhook_endpoints/" + id).status()).isEqualTo(404);
        assertThat(delete(api, "/v1/webhook_endpoints/" + id).status()).isEqualTo(404);
    }

    @Test
    void anotherAccountsEndpointIsNotFoundWhateverTheOperation() {
        String id = createDefault(api).get("id").asText();
        String path = "/v1/webhook_endpoints/" + id;

        List<Api.Answer> answers = List.of(
                other.get(path),
                other.get(path + "/secret"),
                other.get(path + "/deliveries"),
                patch(other, path, "{\"description\": \"mine now\"}"),
                other.post(path + "/rotate_secret", ""),
                other.post(path + "/enable", ""),
                other.post(path + "/pause", ""),
                other.post(path + "/resume", ""),
                other.post(path + "/recover", "{\"since\": \"2020-01-01T00:00:00Z\"}"),
                delete(other, path));

        for (Api.Answer a : answers) {
            assertThat(a.status())
                    .as(a.raw().request().method() + " " + a.raw().uri())
                    .isEqualTo(404);
            assertThat(a.raw().body()).doesNotContain(PUBLIC_URL).doesNotContain("whsec_");
        }
        JsonNode still = api.get(path).body();
        assertThat(still.get("description").asText()).isEmpty();
        assertThat(still.get("enabled").asBoolean()).isTrue();
        assertThat(other.get("/v1/webhook_endpoints").body().toString()).doesNotContain(id);
    }

    @ParameterizedTest
    @CsvSource({
        "https://169.254.169.254/latest/meta-data, not_public",
        "https://127.0.0.1/hooks, not_public",
        "https://10.0.0.1/hooks, not_public",
        "https://[::1]/hooks, not_public",
        "https://0x7f000001/hooks, not_public",
        "https://[::ffff:127.0.0.1]/hooks, not_public",
        "http://1.1.1.1/hooks, https_required",
        "http://127.0.0.1:8080/hooks, https_required",
        "ftp://1.1.1.1/hooks, unsupported_scheme",
        "https://user:pass@1.1.1.1/hooks, userinfo",
    })
    void refusesUrlsTheGuardRefusesNamingTheReason(String url, String reason) {
        Api.Answer a = api.post("/v1/webhook_endpoints", "{\"url\": \"" + url + "\", \"event_types\": [\"*\"]}");

        assertThat(a.status()).as(a.raw().body()).isEqualTo(422);
        assertThat(a.contentType()).startsWith("application/problem+json");
        assertThat(a.body().get("type").asText()).isEqualTo("/problems/webhook-url-refused");
        assertThat(a.body().get("reason").asText()).isEqualTo(reason);
    }

    @Test
    void anEventTypeTheServerDoesNotSendIsRefusedNamingTheKnownOnesOnCreateAndPatch() {
        Api.Answer created = api.post(
                "/v1/webhook_endpoints", "{\"url\": \"" + PUBLIC_URL + "\", \"event_types\": [\"payment.created\"]}");
        String id = createDefault(api).get("id").asText();
        Api.Answer patched = patch(api, "/v1/webhook_endpoints/" + id, "{\"event_types\": [\"paymnt.*\"]}");

        for (Api.Answer a : List.of(created, patched)) {
            assertThat(a.status()).as(a.raw().body()).isEqualTo(400);
            assertThat(a.body().get("type").asText()).isEqualTo("/problems/validation-failed");
            assertThat(a.body().get("retryable").asBoolean()).isFalse();
            JsonNode error = a.body().get("errors").get(0);
            assertThat(error.get("field").asText()).isEqualTo("event_types");
            assertThat(error.get("detail").asText())
                    .contains(dev.retrysafe.server.events.EventTypes.ALL.toArray(String[]::new))
                    .contains("payment.*");
        }
        assertThat(created.body().get("errors").get(0).get("detail").asText()).startsWith("\"payment.created\" is not");
        assertThat(api.get("/v1/webhook_endpoints/" + id)
                        .body()
                        .get("event_types")
                        .toString())
                .as("a refused patch changes nothing")
                .isEqualTo("[\"payment.succeeded\"]");
    }

    @Test
    void prefixPatternsAreTakenAndEachEventIsDeliveredToTheEndpointsTheyMatch() {
        String payments = create(
                        api,
                        "{\"url\": \"" + PUBLIC_URL + "\", \"event_types\": [\"payment.*\", \"payment.succeeded\"]}")
                .get("id")
                .asText();
        JsonNode refunds = create(api, "{\"url\": \"" + PUBLIC_URL + "\", \"event_types\": [\"refund.*\"]}");
        assertThat(refunds.get("event_types").toString()).isEqualTo("[\"refund.*\"]");

        Api.Answer paid = api.post(
                "/v1/payments",
                "{\"amount\": 500, \"currency\": \"eur\"}",
                UUID.randomUUID().toString());
        assertThat(paid.status()).as(paid.raw().body()).isIn(201, 402);

        JsonNode delivered = api.get("/v1/webhook_endpoints/" + payments + "/deliveries")
                .body()
                .get("data");
        assertThat(delivered)
                .as("one delivery, though two of its patterns take the event")
                .hasSize(1);
        assertThat(delivered.get(0).get("event_type").asText()).startsWith("payment.");
        assertThat(api.get("/v1/webhook_endpoints/" + refunds.get("id").asText() + "/deliveries")
                        .body()
                        .get("data"))
                .isEmpty();
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "{}",
                "{\"url\": \"" + PUBLIC_URL + "\"}",
                "{\"url\": \"" + PUBLIC_URL + "\", \"event_types\": []}",
                "{\"url\": \"" + PUBLIC_URL + "\", \"event_types\": \"payment.succeeded\"}",
                "{\"url\": \"" + PUBLIC_URL + "\", \"event_types\": [\"Payment Succeeded\"]}",
                "{\"url\": \"" + PUBLIC_URL + "\", \"event_types\": [7]}",
                "{\"url\": 42, \"event_types\": [\"*\"]}",
                "{\"url\": \"" + PUBLIC_URL + "\", \"event_types\": [\"*\"], \"description\": 5}",
                "{\"url\": \"" + PUBLIC_URL + "\", \"event_types\": [\"*\"], \"secret\": \"whsec_mine\"}",
                "{\"url\": \"" + PUBLIC_URL + "\", \"event_types\": [\"*\"], \"description\": \"a\\u0000b\"}",
            })
    void invalidBodiesAnswer400NamingTheField(String body) {
        Api.Answer a = api.post("/v1/webhook_endpoints", body);

        assertThat(a.status()).as(body + " -> " + a.raw().body()).isEqualTo(400);
        assertThat(a.body().get("type").asText()).isEqualTo("/problems/validation-failed");
        assertThat(a.body().get("errors").size()).isPositive();
    }

    @Test
    void malformedRequestsNeverAnswer500() {
        String id = createDefault(api).get("id").asText();
        List<Api.Answer> answers = List.of(
                api.post("/v1/webhook_endpoints", "not json"),
                api.post("/v1/webhook_endpoints", "[1, 2]"),
                api.post("/v1/webhook_endpoints", "{\"url\": \"https://[zz/\", \"event_types\": [\"*\"]}"),
                api.post(
                        "/v1/webhook_endpoints",
                        "{\"url\": \"" + "https://1.1.1.1/" + "a".repeat(3000) + "\", \"event_types\": [\"*\"]}"),
                api.get("/v1/webhook_endpoints?limit=0"),
                api.get("/v1/webhook_endpoints?limit=abc"),
                api.get("/v1/webhook_endpoints?starting_after=pay_x"),
                api.get("/v1/webhook_endpoints/not-an-id"),
                api.get("/v1/webhook_endpoints/we_00000000000000000000000000"),
                api.get("/v1/webhook_endpoints/" + id + "/deliveries?limit=1000"),
                api.post("/v1/webhook_endpoints/" + id + "/recover", "{\"since\": \"yesterday\"}"),
                api.post("/v1/webhook_endpoints/" + id + "/recover", "{}"),
                patch(api, "/v1/webhook_endpoints/" + id, "{\"enabled\": \"yes\"}"),
                patch(api, "/v1/webhook_endpoints/" + id, "{\"ordered\": \"yes\"}"),
                api.post("/v1/webhook_endpoints/we_00000000000000000000000000/pause", ""),
                api.post("/v1/webhook_endpoints/not-an-id/resume", ""),
                api.get("/v1/deliveries/msg_nope"),
                api.post("/v1/deliveries/msg_00000000000000000000000000/retry", ""),
                patch(api, "/v1/webhook_endpoints/" + id, "{\"rate_limit\": \"fast\"}"),
                api.get("/v1/events?type=NOT%20A%20TYPE"),
                api.get("/v1/events?limit=101"),
                api.get("/v1/events/evt_nope"));

        for (Api.Answer a : answers) {
            assertThat(a.status())
                    .as(a.raw().request().method() + " " + a.raw().uri() + " -> "
                            + a.raw().body())
                    .isBetween(400, 499);
            assertThat(a.contentType()).startsWith("application/problem+json");
        }
    }

    @Test
    void recoverCountsTheFailedDeliveriesItMadeDue() {
        String id = createDefault(api).get("id").asText();

        Api.Answer a = api.post("/v1/webhook_endpoints/" + id + "/recover", "{\"since\": \"2020-01-01T00:00:00Z\"}");

        assertThat(a.status()).as(a.raw().body()).isEqualTo(202);
        assertThat(a.body().get("recovered").asInt()).isZero();
    }

    @Test
    void eventsListIsScopedAndFilteredByType() {
        Api.Answer all = other.get("/v1/events?type=payment.succeeded&limit=5");

        assertThat(all.status()).isEqualTo(200);
        assertThat(all.body().get("data").isArray()).isTrue();
        assertThat(all.body().has("has_more")).isTrue();
    }

    @Test
    void pauseHoldsTheDeliveriesAndResumeReleasesThemShowingTheStatus() throws Exception {
        String id = create(api, "{\"url\": \"" + PUBLIC_URL + "\", \"event_types\": [\"payment.*\"]}")
                .get("id")
                .asText();
        String path = "/v1/webhook_endpoints/" + id;
        assertThat(api.get(path).body().get("status").asText()).isEqualTo("enabled");

        Api.Answer paused = api.post(path + "/pause", "");
        assertThat(paused.status()).as(paused.raw().body()).isEqualTo(200);
        assertThat(paused.body().get("status").asText()).isEqualTo("paused");
        assertThat(paused.body().get("paused_at").isTextual()).isTrue();
        assertThat(paused.body().get("enabled").asBoolean()).isTrue();
        assertThat(api.post(path + "/pause", "").body().get("paused_at"))
                .as("pausing again keeps the first pause")
                .isEqualTo(paused.body().get("paused_at"));
        Api.Answer paid = api.post(
                "/v1/payments",
                "{\"amount\": 500, \"currency\": \"eur\"}",
                UUID.randomUUID().toString());
        assertThat(paid.status()).as(paid.raw().body()).isIn(201, 402);
        JsonNode held = api.get(path + "/deliveries").body().get("data");
        assertThat(held).hasSize(1);
        assertThat(held.get(0).get("status").asText()).isEqualTo("pending");
        assertThat(held.get(0).get("attempt_count").asInt())
                .as("nothing attempted while paused")
                .isZero();
        assertThat(held.get(0).get("next_attempt_at").isNull())
                .as("held, not scheduled")
                .isTrue();

        Api.Answer resumed = api.post(path + "/resume", "");
        assertThat(resumed.status()).as(resumed.raw().body()).isEqualTo(200);
        assertThat(resumed.body().get("status").asText()).isEqualTo("enabled");
        assertThat(resumed.body().get("paused_at").isNull()).isTrue();
        JsonNode released = api.get(path + "/deliveries").body().get("data").get(0);
        assertThat(!released.get("next_attempt_at").isNull()
                        || released.get("attempt_count").asInt() > 0)
                .as("due again (or attempted already): %s", released)
                .isTrue();
    }

    @Test
    void orderedIsSetOnCreateAndPatchAndMustBeABoolean() {
        JsonNode created =
                create(api, "{\"url\": \"" + PUBLIC_URL + "\", \"event_types\": [\"*\"], \"ordered\": true}");
        String path = "/v1/webhook_endpoints/" + created.get("id").asText();
        assertThat(created.get("ordered").asBoolean()).isTrue();
        assertThat(createDefault(api).get("ordered").asBoolean())
                .as("unordered unless asked")
                .isFalse();

        Api.Answer off = patch(api, path, "{\"ordered\": false}");
        assertThat(off.status()).as(off.raw().body()).isEqualTo(200);
        assertThat(off.body().get("ordered").asBoolean()).isFalse();
        assertThat(api.get(path).body().get("ordered").asBoolean()).isFalse();

        for (Api.Answer bad : List.of(
                patch(api, path, "{\"ordered\": 1}"),
                api.post(
                        "/v1/webhook_endpoints",
                        "{\"url\": \"" + PUBLIC_URL + "\", \"event_types\": [\"*\"], \"ordered\": \"true\"}"))) {
            assertThat(bad.status()).as(bad.raw().body()).isEqualTo(400);
            assertThat(bad.body().get("type").asText()).isEqualTo("/problems/validation-failed");
            assertThat(bad.body().get("errors").toString()).contains("ordered");
        }
    }

    @Test
    void paymentAndRefundEventsCarryThePaymentIdAsTheirOrderingKey() throws Exception {
        String id = create(
                        api,
                        "{\"url\": \"" + PUBLIC_URL + "\", \"event_types\": [\"payment.*\", \"refund.*\"],"
                                + " \"ordered\": true}")
                .get("id")
                .asText();
        Api.Answer paid = api.post(
                "/v1/payments",
                "{\"amount\": 500, \"currency\": \"eur\"}",
                UUID.randomUUID().toString());
        assertThat(paid.status()).as(paid.raw().body()).isIn(201, 402);
        String payment = paid.body().get("id").asText();
        if (paid.status() == 201) {
            Api.Answer refunded = api.post(
                    "/v1/refunds",
                    "{\"payment_id\": \"" + payment + "\", \"amount\": 100}",
                    UUID.randomUUID().toString());
            assertThat(refunded.status()).as(refunded.raw().body()).isEqualTo(201);
        }

        List<String> keys = new ArrayList<>();
        try (var c = java.sql.DriverManager.getConnection(
                        server.config().database().jdbcUrl(server.config().dataDir()),
                        server.config().database().user(),
                        server.config().database().password());
                var s = c.prepareStatement("SELECT d.ordering_key, e.ordering_key FROM deliveries d"
                        + " JOIN events e ON e.id = d.event_id WHERE d.endpoint_id = ?")) {
            s.setString(1, id);
            try (var rs = s.executeQuery()) {
                while (rs.next()) {
                    assertThat(rs.getString(2)).as("the event keeps it too").isEqualTo(rs.getString(1));
                    keys.add(rs.getString(1));
                }
            }
        }
        assertThat(keys).isNotEmpty().containsOnly(payment).hasSize(paid.status() == 201 ? 2 : 1);

        // and the event, as shown and as delivered, names it
        Api.Answer events = api.get("/v1/events?limit=10");
        assertThat(events.status()).isEqualTo(200);
        List<String> shown = new ArrayList<>();
        for (var event : events.body().get("data")) {
            if (event.get("type").asText().matches("(payment|refund)\\..*")) {
                shown.add(event.path("ordering_key").asText("missing"));
            }
        }
        assertThat(shown).hasSize(keys.size()).containsOnly(payment);
        try (var c = java.sql.DriverManager.getConnection(
                        server.config().database().jdbcUrl(server.config().dataDir()),
                        server.config().database().user(),
                        server.config().database().password());
                var s = c.prepareStatement("SELECT payload FROM deliveries WHERE endpoint_id = ?")) {
            s.setString(1, id);
            try (var rs = s.executeQuery()) {
                while (rs.next()) {
                    assertThat(new String(rs.getBytes(1), java.nio.charset.StandardCharsets.UTF_8))
                            .contains("\"ordering_key\":\"" + payment + "\"");
                }
            }
        }
    }
}
