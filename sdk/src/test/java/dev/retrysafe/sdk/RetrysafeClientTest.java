package dev.retrysafe.sdk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.assertj.core.api.Assertions.tuple;

import dev.retrysafe.client.RetryingHttpClient;
import dev.retrysafe.client.testing.FakeSleeper;
import dev.retrysafe.client.testing.ScriptedServer;
import dev.retrysafe.client.testing.ScriptedServer.Answer;
import dev.retrysafe.client.testing.ScriptedServer.Received;
import dev.retrysafe.testkit.FakeClock;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * The typed client against a fake of the Retrysafe API on 127.0.0.1 that answers like API.md
 * says: field names, statuses, {@code Location}, {@code Retry-After}, problem details.
 */
class RetrysafeClientTest {

    private static final String KEY = "rs_test_0123456789abcdef";
    private static final String PAYMENT = """
            {"id":"pay_01","object":"payment","amount":500,"amount_refunded":0,"currency":"eur",\
            "status":"succeeded","description":"order 1","created_at":"2026-01-01T10:00:00.123Z"}""";
    private static final String JOB = """
            {"id":"job_01","object":"job","kind":"payments_csv","status":"%s","created_at":"2026-01-01T10:00:00Z",\
            "started_at":%s,"finished_at":%s,"progress":%s,"attempts":1,"cancel_requested":false,"result_url":%s,\
            "result_size":null,"result_expires_at":null,"result_expired":false,"error":null}""";
    private static final String ENDPOINT = """
            {"id":"we_01","object":"webhook_endpoint","url":"https://example.com/hooks","description":"shop",\
            "event_types":["payment.succeeded","refund.created"],"enabled":true,"disabled_reason":null,\
            "created_at":"2026-01-01T10:00:00Z","updated_at":"2026-01-01T10:00:00Z","failing_since":null,\
            "previous_secret_expires_at":null,"rate_limit":null""";

    private final FakeClock clock = new FakeClock();
    private final FakeSleeper sleeper = new FakeSleeper(clock);

    private static final String DELIVERY = """
            {"id":"msg_01","object":"delivery","endpoint_id":"we_01","event_id":"evt_01","event_type":"payment.succeeded",\
            "status":"succeeded","attempt_count":2,"next_attempt_at":null,"created_at":"2026-01-01T10:00:00Z",\
            "last_attempt_at":"2026-01-01T10:00:05Z","last_outcome":"success","last_status_code":200""";
    private static final String EVENT = "{\"id\":\"evt_01\",\"type\":\"payment.succeeded\","
            + "\"timestamp\":\"2026-01-01T10:00:00Z\",\"data\":" + PAYMENT + "}";

    /** The endpoint of {@link #ENDPOINT}, with the members a change can touch. */
    private static WebhookEndpoint endpoint(boolean enabled, String disabledReason, Integer rateLimit) {
        return new WebhookEndpoint(
                "we_01",
                "https://example.com/hooks",
                "shop",
                List.of("payment.succeeded", "refund.created"),
                enabled,
                disabledReason,
                rateLimit,
                Instant.parse("2026-01-01T10:00:00Z"),
                Instant.parse("2026-01-01T10:00:00Z"),
                null,
                null);
    }

    private static Delivery delivery(String status, int attempts) {
        return new Delivery(
                "msg_01",
                "we_01",
                "evt_01",
                "payment.succeeded",
                status,
                attempts,
                null,
                Instant.parse("2026-01-01T10:00:00Z"),
                Instant.parse("2026-01-01T10:00:05Z"),
                "success",
                200);
    }

    private static String job(String status, int progress) {
        boolean done = status.equals("succeeded");
        return JOB.formatted(
                status,
                status.equals("queued") ? "null" : "\"2026-01-01T10:00:01Z\"",
                done ? "\"2026-01-01T10:00:03Z\"" : "null",
                progress,
                done ? "\"/v1/jobs/job_01/result\"" : "null");
    }

    private RetrysafeClient client(ScriptedServer server) {
        RetryingHttpClient http =
                RetryingHttpClient.builder().clock(clock).sleeper(sleeper).build();
        return RetrysafeClient.builder()
                .baseUri(server.uri("/"))
                .apiKey(KEY)
                .http(http)
                .build();
    }

    private static ScriptedServer api(Function<Received, Answer> routes) {
        return ScriptedServer.routing(r -> {
            if (!("Bearer " + KEY).equals(r.header("Authorization"))) {
                return new Answer(401, Map.of("WWW-Authenticate", "Bearer"), "", null);
            }
            return routes.apply(r);
        });
    }

    @Test
    void createsAPaymentWithAGeneratedKeyAndReadsEveryField() throws Exception {
        AtomicInteger tries = new AtomicInteger();
        try (ScriptedServer server = api(r -> tries.incrementAndGet() == 1
                        ? Answer.of(503, "Retry-After", "1")
                        : new Answer(
                                201,
                                Map.of("Content-Type", "application/json", "Location", "/v1/payments/pay_01"),
                                PAYMENT,
                                null));
                RetrysafeClient api = client(server)) {
            Payment payment = api.createPayment(500, "eur", "order 1");

            assertThat(payment)
                    .isEqualTo(new Payment(
                            "pay_01",
                            500,
                            0,
                            "eur",
                            "succeeded",
                            "order 1",
                            Instant.parse("2026-01-01T10:00:00.123Z")));
            List<Received> received = server.received();
            assertThat(received).hasSize(2).allSatisfy(r -> {
                assertThat(r.method()).isEqualTo("POST");
                assertThat(r.path()).isEqualTo("/v1/payments");
                assertThat(r.header("Content-Type")).isEqualTo("application/json; charset=utf-8");
                assertThat(r.body()).isEqualTo("{\"amount\":500,\"currency\":\"eur\",\"description\":\"order 1\"}");
            });
            assertThat(received.get(0).header("Idempotency-Key"))
                    .isNotNull()
                    .isEqualTo(received.get(1).header("Idempotency-Key"));
        }
    }

    @Test
    void sendsTheCallersKey() throws Exception {
        try (ScriptedServer server = api(r -> Answer.withBody(201, PAYMENT));
                RetrysafeClient api = client(server)) {
            api.createPayment(500, "eur", null, "order-17");
            assertThat(server.received().getFirst().header("Idempotency-Key")).isEqualTo("order-17");
            assertThat(server.received().getFirst().body()).isEqualTo("{\"amount\":500,\"currency\":\"eur\"}");
            assertThatThrownBy(() -> api.createPayment(500, "eur", null, ""))
                    .isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void readsAPaymentAndAPage() throws Exception {
        try (ScriptedServer server = api(r -> r.path().startsWith("/v1/payments?")
                        ? Answer.withBody(
                                200,
                                "{\"data\":[" + PAYMENT + "," + PAYMENT.replace("pay_01", "pay_00")
                                        + "],\"has_more\":true}")
                        : Answer.withBody(200, PAYMENT));
                RetrysafeClient api = client(server)) {
            assertThat(api.getPayment("pay_01").id()).isEqualTo("pay_01");
            Page<Payment> page = api.listPayments(2, "pay_02");
            assertThat(page.data()).extracting(Payment::id).containsExactly("pay_01", "pay_00");
            assertThat(page.hasMore()).isTrue();
            assertThat(page.last().id()).isEqualTo("pay_00");
            assertThat(server.received())
                    .extracting(Received::path)
                    .containsExactly("/v1/payments/pay_01", "/v1/payments?limit=2&starting_after=pay_02");
            assertThatThrownBy(() -> api.listPayments(101, null)).hasMessage("limit must be 1..100, was 101");
        }
    }

    @Test
    void anErrorAnswerIsAnApiExceptionWithItsProblem() throws Exception {
        String problem = """
                {"type":"/problems/refund-exceeds-payment","title":"Refund exceeds payment","status":422,\
                "detail":"Only 300 of 500 remain.","retryable":false}""";
        try (ScriptedServer server =
                        api(r -> new Answer(422, Map.of("Content-Type", "application/problem+json"), problem, null));
                RetrysafeClient api = client(server)) {
            ApiException e = catchThrowableOfType(ApiException.class, () -> api.createRefund("pay_01", 400L));
            assertThat(e.status()).isEqualTo(422);
            assertThat(e.problemType()).isEqualTo("/problems/refund-exceeds-payment");
            assertThat(e.problem().detail()).isEqualTo("Only 300 of 500 remain.");
            assertThat(e.problem().retryable()).isFalse();
            assertThat(e.attempts()).hasSize(1);
            assertThat(e.getMessage())
                    .isEqualTo("POST /v1/refunds answered 422: Refund exceeds payment (Only 300 of 500 remain.)");
            assertThat(server.received().getFirst().body()).isEqualTo("{\"payment_id\":\"pay_01\",\"amount\":400}");
        }
    }

    @Test
    void aWrongKeyIsA401() throws Exception {
        try (ScriptedServer server = api(r -> Answer.withBody(200, PAYMENT));
                RetrysafeClient api = RetrysafeClient.builder()
                        .baseUri(server.uri("/"))
                        .apiKey("rs_wrong_key_000000")
                        .http(RetryingHttpClient.builder()
                                .clock(clock)
                                .sleeper(sleeper)
                                .build())
                        .build()) {
            ApiException e = catchThrowableOfType(ApiException.class, () -> api.getPayment("pay_01"));
            assertThat(e.status()).isEqualTo(401);
            assertThat(e.problem()).isNull();
        }
    }

    @Test
    void aMalformedAnswerIsAnIoExceptionNamingTheMember() throws Exception {
        try (ScriptedServer server =
                        api(r -> Answer.withBody(200, PAYMENT.replace("\"amount\":500", "\"amount\":\"500\"")));
                RetrysafeClient api = client(server)) {
            assertThatThrownBy(() -> api.getPayment("pay_01"))
                    .hasMessage("unexpected answer: member 'amount' of the payment is not an integer");
        }
    }

    @Test
    void refundsAreCreatedAndRead() throws Exception {
        String refund = "{\"id\":\"re_01\",\"object\":\"refund\",\"payment_id\":\"pay_01\",\"amount\":200,"
                + "\"status\":\"succeeded\",\"created_at\":\"2026-01-01T10:00:00Z\"}";
        try (ScriptedServer server = api(
                        r -> r.method().equals("POST") ? Answer.withBody(201, refund) : Answer.withBody(200, refund));
                RetrysafeClient api = client(server)) {
            Refund created = api.createRefund("pay_01", null, "refund-1");
            assertThat(created)
                    .isEqualTo(new Refund("re_01", "pay_01", 200, "succeeded", Instant.parse("2026-01-01T10:00:00Z")));
            assertThat(api.getRefund("re_01")).isEqualTo(created);
            assertThat(server.received().getFirst().body()).isEqualTo("{\"payment_id\":\"pay_01\"}");
        }
    }

    @Test
    void aReportIsFollowedThroughItsLocationHonouringRetryAfterUntilDone() throws Exception {
        AtomicInteger polls = new AtomicInteger();
        try (ScriptedServer server = api(r -> switch (r.method() + " " + r.path()) {
                    case "POST /v1/reports" ->
                        new Answer(
                                202,
                                Map.of(
                                        "Content-Type",
                                        "application/json",
                                        "Location",
                                        "/v1/jobs/job_01",
                                        "Retry-After",
                                        "2"),
                                job("queued", 0),
                                null);
                    case "GET /v1/jobs/job_01" ->
                        switch (polls.incrementAndGet()) {
                            case 1 -> new Answer(200, Map.of("Retry-After", "1"), job("running", 40), null);
                            case 2 -> new Answer(200, Map.of("Retry-After", "3"), job("running", 90), null);
                            default -> Answer.withBody(200, job("succeeded", 100));
                        };
                    case "GET /v1/jobs/job_01/result" ->
                        new Answer(200, Map.of("Content-Type", "text/csv"), "id,amount\npay_01,500\n", null);
                    default -> Answer.of(404);
                });
                RetrysafeClient api = client(server)) {
            AcceptedJob accepted = api.createReport(Instant.parse("2026-01-01T00:00:00Z"), null);
            assertThat(accepted.location()).isEqualTo(server.uri("/v1/jobs/job_01"));
            assertThat(accepted.retryAfter()).isEqualTo(Duration.ofSeconds(2));
            assertThat(accepted.job().status()).isEqualTo(JobStatus.QUEUED);
            assertThat(server.received().getFirst().body())
                    .isEqualTo("{\"kind\":\"payments_csv\",\"from\":\"2026-01-01T00:00:00Z\"}");
            assertThat(server.received().getFirst().header("Idempotency-Key")).isNotNull();

            Job done = api.awaitJob(accepted, Duration.ofMinutes(1));

            assertThat(done.status()).isEqualTo(JobStatus.SUCCEEDED);
            assertThat(done.progress()).isEqualTo(100);
            assertThat(done.resultUrl()).isEqualTo("/v1/jobs/job_01/result");
            assertThat(done.finishedAt()).isEqualTo(Instant.parse("2026-01-01T10:00:03Z"));
            assertThat(polls).hasValue(3);
            assertThat(sleeper.waits())
                    .containsExactly(Duration.ofSeconds(2), Duration.ofSeconds(1), Duration.ofSeconds(3));
            assertThat(api.jobResult(done.id(), HttpResponse.BodyHandlers.ofString()))
                    .isEqualTo("id,amount\npay_01,500\n");
        }
    }

    @Test
    void followingAJobStopsAtTheTimeoutWithTheLastStateSeen() throws Exception {
        try (ScriptedServer server = api(r -> r.method().equals("POST")
                        ? new Answer(
                                202, Map.of("Location", "/v1/jobs/job_01", "Retry-After", "1"), job("queued", 0), null)
                        : new Answer(200, Map.of("Retry-After", "1"), job("running", 10), null));
                RetrysafeClient api = client(server)) {
            Job last = api.awaitJob(api.createReport(null, null), Duration.ofMillis(4_500));
            assertThat(last.status()).isEqualTo(JobStatus.RUNNING);
            assertThat(last.finished()).isFalse();
            assertThat(sleeper.total()).isLessThanOrEqualTo(Duration.ofMillis(4_500));
            assertThat(server.received()).hasSize(1 + 4);
        }
    }

    @Test
    void jobsAreReadCanceledAndTheirMissingResultIsAProblem() throws Exception {
        String notReady = "{\"type\":\"/problems/job-result-not-ready\",\"title\":\"Result not ready\",\"status\":409}";
        try (ScriptedServer server = api(r -> switch (r.method() + " " + r.path()) {
                    case "GET /v1/jobs/job_01" -> Answer.withBody(200, job("running", 50));
                    case "DELETE /v1/jobs/job_01" -> Answer.withBody(202, job("running", 50));
                    case "GET /v1/jobs/job_01/result" ->
                        new Answer(409, Map.of("Content-Type", "application/problem+json"), notReady, null);
                    default -> Answer.of(404);
                });
                RetrysafeClient api = client(server)) {
            assertThat(api.getJob("job_01").progress()).isEqualTo(50);
            assertThat(api.cancelJob("job_01").status()).isEqualTo(JobStatus.RUNNING);
            ApiException e = catchThrowableOfType(
                    ApiException.class, () -> api.jobResult("job_01", HttpResponse.BodyHandlers.ofString()));
            assertThat(e.problemType()).isEqualTo("/problems/job-result-not-ready");
        }
    }

    @Test
    void webhookEndpointsAreCreatedReadListedAndDeleted() throws Exception {
        try (ScriptedServer server = api(r -> switch (r.method() + " " + r.path()) {
                    case "POST /v1/webhook_endpoints" ->
                        Answer.withBody(201, ENDPOINT + ",\"secret\":\"whsec_c2VjcmV0\"}");
                    case "GET /v1/webhook_endpoints/we_01" -> Answer.withBody(200, ENDPOINT + "}");
                    case "GET /v1/webhook_endpoints?limit=20" ->
                        Answer.withBody(200, "{\"data\":[" + ENDPOINT + "}],\"has_more\":false}");
                    case "DELETE /v1/webhook_endpoints/we_01" ->
                        Answer.withBody(200, "{\"id\":\"we_01\",\"deleted\":true}");
                    default -> Answer.of(404);
                });
                RetrysafeClient api = client(server)) {
            CreatedWebhookEndpoint created = api.createWebhookEndpoint(
                    "https://example.com/hooks", List.of("payment.succeeded", "refund.created"), "shop");
            WebhookEndpoint expected = endpoint(true, null, null);
            assertThat(created.endpoint()).isEqualTo(expected);
            assertThat(created.secret()).isEqualTo("whsec_c2VjcmV0");
            assertThat(created.toString()).doesNotContain("whsec_");
            assertThat(server.received().getFirst().body())
                    .isEqualTo(
                            "{\"url\":\"https://example.com/hooks\",\"event_types\":[\"payment.succeeded\",\"refund.created\"],"
                                    + "\"description\":\"shop\"}");
            assertThat(api.getWebhookEndpoint("we_01")).isEqualTo(expected);
            assertThat(api.listWebhookEndpoints(20, null).data()).containsExactly(expected);
            api.deleteWebhookEndpoint("we_01");
            assertThat(server.received()).extracting(Received::method).containsExactly("POST", "GET", "GET", "DELETE");
        }
    }

    @Test
    void anEndpointChangeSendsOnlyTheMembersSet() throws Exception {
        String changed = ENDPOINT.replace(
                                "\"enabled\":true,\"disabled_reason\":null",
                                "\"enabled\":false,\"disabled_reason\":\"manual\"")
                        .replace("\"rate_limit\":null", "\"rate_limit\":20")
                + "}";
        try (ScriptedServer server =
                        api(r -> r.method().equals("PATCH") && r.path().equals("/v1/webhook_endpoints/we_01")
                                ? Answer.withBody(200, changed)
                                : Answer.of(404));
                RetrysafeClient api = client(server)) {
            WebhookEndpoint after = api.updateWebhookEndpoint(
                    "we_01",
                    WebhookEndpointUpdate.builder().enabled(false).rateLimit(20).build());

            assertThat(after).isEqualTo(endpoint(false, "manual", 20));
            Received patch = server.received().getFirst();
            assertThat(patch.body()).isEqualTo("{\"enabled\":false,\"rate_limit\":20}");
            assertThat(patch.header("Content-Type")).isEqualTo("application/json; charset=utf-8");

            api.updateWebhookEndpoint(
                    "we_01",
                    WebhookEndpointUpdate.builder()
                            .url("https://example.com/v2")
                            .eventTypes(List.of("*"))
                            .description("all")
                            .rateLimit(null)
                            .build());
            assertThat(server.received().get(1).body())
                    .as("null removes the limit")
                    .isEqualTo(
                            "{\"url\":\"https://example.com/v2\",\"event_types\":[\"*\"],\"description\":\"all\",\"rate_limit\":null}");

            api.updateWebhookEndpoint(
                    "we_01", WebhookEndpointUpdate.builder().ordered(true).build());
            assertThat(server.received().get(2).body()).isEqualTo("{\"ordered\":true}");
        }
    }

    @Test
    void anEmptyOrInvalidChangeIsRefusedBeforeAnythingIsSent() {
        assertThatThrownBy(() -> WebhookEndpointUpdate.builder().build())
                .hasMessage("a WebhookEndpointUpdate changes at least one member");
        assertThatThrownBy(() -> WebhookEndpointUpdate.builder().rateLimit(0))
                .hasMessage("rateLimit must be positive or null, was 0");
        assertThatThrownBy(() -> WebhookEndpointUpdate.builder().eventTypes(List.of()))
                .hasMessage("eventTypes must not be empty");
        assertThat(WebhookEndpointUpdate.builder().enabled(true).build())
                .isEqualTo(WebhookEndpointUpdate.builder().enabled(true).build());
    }

    @Test
    void aSecretIsReadAndRotatedAndAnEndpointEnabledWithKeyedPostsWithoutBody() throws Exception {
        String rotated = ENDPOINT.replace(
                        "\"previous_secret_expires_at\":null",
                        "\"previous_secret_expires_at\":\"2026-01-02T10:00:00Z\"")
                + ",\"secret\":\"whsec_bmV3\"}";
        try (ScriptedServer server = api(r -> switch (r.method() + " " + r.path()) {
                    case "GET /v1/webhook_endpoints/we_01/secret" ->
                        Answer.withBody(
                                200,
                                "{\"object\":\"webhook_endpoint_secret\",\"endpoint_id\":\"we_01\",\"secret\":\"whsec_b2xk\"}");
                    case "POST /v1/webhook_endpoints/we_01/rotate_secret" -> Answer.withBody(200, rotated);
                    case "POST /v1/webhook_endpoints/we_01/enable" -> Answer.withBody(200, ENDPOINT + "}");
                    case "POST /v1/webhook_endpoints/we_01/pause" ->
                        Answer.withBody(
                                200,
                                ENDPOINT
                                        + ",\"status\":\"paused\",\"paused_at\":\"2026-01-03T10:00:00Z\",\"ordered\":true}");
                    case "POST /v1/webhook_endpoints/we_01/resume" ->
                        Answer.withBody(
                                200, ENDPOINT + ",\"status\":\"enabled\",\"paused_at\":null,\"ordered\":false}");
                    default -> Answer.of(404);
                });
                RetrysafeClient api = client(server)) {
            assertThat(api.getWebhookEndpointSecret("we_01")).isEqualTo("whsec_b2xk");
            CreatedWebhookEndpoint after = api.rotateWebhookEndpointSecret("we_01");
            assertThat(after.secret()).isEqualTo("whsec_bmV3");
            assertThat(after.endpoint().previousSecretExpiresAt()).isEqualTo(Instant.parse("2026-01-02T10:00:00Z"));
            assertThat(api.enableWebhookEndpoint("we_01")).isEqualTo(endpoint(true, null, null));
            WebhookEndpoint paused = api.pauseWebhookEndpoint("we_01");
            assertThat(paused.pausedAt()).isEqualTo(Instant.parse("2026-01-03T10:00:00Z"));
            assertThat(paused.paused()).isTrue();
            assertThat(paused.ordered()).isTrue();
            assertThat(api.resumeWebhookEndpoint("we_01")).isEqualTo(endpoint(true, null, null));

            assertThat(server.received().subList(1, 5)).allSatisfy(post -> {
                assertThat(post.method()).isEqualTo("POST");
                assertThat(post.body()).isEmpty();
                assertThat(post.header("Content-Type")).isNull();
                assertThat(post.header("Idempotency-Key")).isNotNull();
            });
        }
    }

    @Test
    void failedDeliveriesAreRecoveredListedReadWithEveryAttemptAndRetried() throws Exception {
        String detail = DELIVERY + ",\"payload\":" + EVENT + ",\"attempts\":["
                + "{\"id\":\"att_01\",\"object\":\"delivery_attempt\",\"number\":1,\"started_at\":\"2026-01-01T10:00:00Z\","
                + "\"outcome\":\"http_error\",\"status_code\":500,\"latency_ms\":12,\"response\":\"oops\",\"error\":null},"
                + "{\"id\":\"att_02\",\"object\":\"delivery_attempt\",\"number\":2,\"started_at\":\"2026-01-01T10:00:05Z\","
                + "\"outcome\":\"success\",\"status_code\":200,\"latency_ms\":7,\"response\":\"\",\"error\":null}]}";
        String notRetryable = """
                {"type":"/problems/delivery-not-retryable","title":"Delivery not retryable","status":409,\
                "detail":"disabled","reason":"endpoint_disabled","delivery_status":"failed","endpoint_id":"we_01"}""";
        AtomicInteger retries = new AtomicInteger();
        try (ScriptedServer server = api(r -> switch (r.method() + " " + r.path()) {
                    case "POST /v1/webhook_endpoints/we_01/recover" ->
                        Answer.withBody(
                                202,
                                "{\"object\":\"recovery\",\"endpoint_id\":\"we_01\",\"since\":\"2026-01-01T00:00:00Z\",\"recovered\":3}");
                    case "GET /v1/webhook_endpoints/we_01/deliveries?limit=5&starting_after=msg_09" ->
                        Answer.withBody(200, "{\"object\":\"list\",\"data\":[" + DELIVERY + "}],\"has_more\":false}");
                    case "GET /v1/deliveries/msg_01" -> Answer.withBody(200, detail);
                    case "POST /v1/deliveries/msg_01/retry" ->
                        retries.incrementAndGet() == 1
                                ? Answer.withBody(
                                        202,
                                        DELIVERY.replace("\"status\":\"succeeded\"", "\"status\":\"pending\"") + "}")
                                : new Answer(
                                        409, Map.of("Content-Type", "application/problem+json"), notRetryable, null);
                    default -> Answer.of(404);
                });
                RetrysafeClient api = client(server)) {
            Recovery recovery = api.recoverWebhookEndpoint("we_01", Instant.parse("2026-01-01T00:00:00Z"));
            assertThat(recovery).isEqualTo(new Recovery("we_01", Instant.parse("2026-01-01T00:00:00Z"), 3));
            assertThat(server.received().getFirst().body()).isEqualTo("{\"since\":\"2026-01-01T00:00:00Z\"}");

            assertThat(api.listWebhookEndpointDeliveries("we_01", 5, "msg_09").data())
                    .containsExactly(delivery("succeeded", 2));

            DeliveryDetail read = api.getDelivery("msg_01");
            assertThat(read.delivery()).isEqualTo(delivery("succeeded", 2));
            assertThat(read.delivery().finished()).isTrue();
            assertThat(read.payload())
                    .isInstanceOfSatisfying(
                            Map.class, m -> assertThat(m.get("id")).isEqualTo("evt_01"));
            assertThat(read.attempts())
                    .containsExactly(
                            new DeliveryAttempt(
                                    "att_01",
                                    1,
                                    Instant.parse("2026-01-01T10:00:00Z"),
                                    "http_error",
                                    500,
                                    Duration.ofMillis(12),
                                    "oops",
                                    null),
                            new DeliveryAttempt(
                                    "att_02",
                                    2,
                                    Instant.parse("2026-01-01T10:00:05Z"),
                                    "success",
                                    200,
                                    Duration.ofMillis(7),
                                    "",
                                    null));

            Delivery pending = api.retryDelivery("msg_01");
            assertThat(pending.status()).isEqualTo("pending");
            assertThat(pending.finished()).isFalse();
            ApiException refused = catchThrowableOfType(ApiException.class, () -> api.retryDelivery("msg_01"));
            assertThat(refused.status()).isEqualTo(409);
            assertThat(refused.problemType()).isEqualTo("/problems/delivery-not-retryable");
            assertThat(refused.problem().members()).containsEntry("reason", "endpoint_disabled");
            assertThat(refused.attempts())
                    .as("a 409 without Retry-After is not retried")
                    .hasSize(1);
        }
    }

    @Test
    void eventsAreListedByTypeAndReadWithTheirDeliveries() throws Exception {
        try (ScriptedServer server = api(r -> switch (r.path()) {
                    case "/v1/events?limit=10&type=payment.succeeded" ->
                        Answer.withBody(200, "{\"object\":\"list\",\"data\":[" + EVENT + "],\"has_more\":true}");
                    case "/v1/events/evt_01" -> Answer.withBody(200, EVENT);
                    case "/v1/events/evt_01/deliveries" ->
                        Answer.withBody(200, "{\"object\":\"list\",\"data\":[" + DELIVERY + "}],\"has_more\":false}");
                    case "/v1/events/evt_01/deliveries?limit=1&starting_after=msg_09" ->
                        Answer.withBody(200, "{\"object\":\"list\",\"data\":[" + DELIVERY + "}],\"has_more\":true}");
                    default -> Answer.of(404);
                });
                RetrysafeClient api = client(server)) {
            Page<Event> page = api.listEvents("payment.succeeded", 10, null);
            assertThat(page.hasMore()).isTrue();
            Event event = page.data().getFirst();
            assertThat(event.id()).isEqualTo("evt_01");
            assertThat(event.type()).isEqualTo("payment.succeeded");
            assertThat(event.timestamp()).isEqualTo(Instant.parse("2026-01-01T10:00:00Z"));
            assertThat(event.objectId()).isEqualTo("pay_01");
            assertThat(event.data()).containsEntry("amount", 500L).containsEntry("currency", "eur");
            assertThat(api.getEvent("evt_01")).isEqualTo(event);
            assertThat(api.listEventDeliveries("evt_01").data()).containsExactly(delivery("succeeded", 2));
            Page<Delivery> next = api.listEventDeliveries("evt_01", 1, "msg_09");
            assertThat(next.data()).containsExactly(delivery("succeeded", 2));
            assertThat(next.hasMore()).isTrue();
            ApiException missing = catchThrowableOfType(ApiException.class, () -> api.getEvent("evt_02"));
            assertThat(missing.status()).isEqualTo(404);
        }
    }

    @Test
    void attemptStatisticsAndRateLimitBudgetsAreRead() throws Exception {
        String stats = """
                {"object":"webhook_attempt_stats","from":"2026-01-01T09:00:00Z","to":"2026-01-01T11:00:00Z",\
                "bucket_seconds":3600,"buckets":[{"start":"2026-01-01T09:00:00Z","outcomes":{"success":2,"http_error":1}},\
                {"start":"2026-01-01T10:00:00Z","outcomes":{"success":1,"timeout":4}}]}""";
        String budgets = """
                {"enabled":true,"policies":[{"name":"key","scope":"api_key","algorithm":"gcra","limit":100,\
                "window_seconds":10,"known":true,"remaining":99,"used":1,"reset_seconds":1,"reset_at":"2026-01-01T10:00:01Z"},\
                {"name":"burst","scope":"ip","algorithm":"fixed_window","limit":5,"window_seconds":0.5,"known":false}]}""";
        try (ScriptedServer server = api(r -> switch (r.path()) {
                    case "/v1/webhook_attempt_stats?hours=2" -> Answer.withBody(200, stats);
                    case "/v1/rate_limit" -> Answer.withBody(200, budgets);
                    default -> Answer.of(404);
                });
                RetrysafeClient api = client(server)) {
            WebhookAttemptStats read = api.getWebhookAttemptStats(2);
            assertThat(read.bucketLength()).isEqualTo(Duration.ofHours(1));
            assertThat(read.buckets())
                    .extracting(WebhookAttemptStats.Bucket::start)
                    .containsExactly(Instant.parse("2026-01-01T09:00:00Z"), Instant.parse("2026-01-01T10:00:00Z"));
            assertThat(read.totals()).isEqualTo(Map.of("success", 3L, "http_error", 1L, "timeout", 4L));
            assertThatThrownBy(() -> api.getWebhookAttemptStats(169)).hasMessage("hours must be 1..168, was 169");

            RateLimitStatus limits = api.getRateLimits();
            assertThat(limits.enabled()).isTrue();
            assertThat(limits.policies())
                    .containsExactly(
                            new RateLimitBudget(
                                    "key",
                                    "api_key",
                                    "gcra",
                                    100,
                                    Duration.ofSeconds(10),
                                    true,
                                    99L,
                                    1L,
                                    Duration.ofSeconds(1),
                                    Instant.parse("2026-01-01T10:00:01Z")),
                            new RateLimitBudget(
                                    "burst",
                                    "ip",
                                    "fixed_window",
                                    5,
                                    Duration.ofMillis(500),
                                    false,
                                    null,
                                    null,
                                    null,
                                    null));
        }
    }

    @Test
    void refundsAndJobsAreListedPageByPage() throws Exception {
        String refund = "{\"id\":\"re_01\",\"object\":\"refund\",\"payment_id\":\"pay_01\",\"amount\":200,"
                + "\"status\":\"succeeded\",\"created_at\":\"2026-01-01T10:00:00Z\"}";
        try (ScriptedServer server = api(r -> switch (r.path()) {
                    case "/v1/refunds?limit=1" ->
                        Answer.withBody(200, "{\"object\":\"list\",\"data\":[" + refund + "],\"has_more\":true}");
                    case "/v1/jobs?limit=3&starting_after=job_02" ->
                        Answer.withBody(
                                200, "{\"object\":\"list\",\"data\":[" + job("queued", 0) + "],\"has_more\":false}");
                    default -> Answer.of(404);
                });
                RetrysafeClient api = client(server)) {
            Page<Refund> refunds = api.listRefunds(1, null);
            assertThat(refunds.data()).extracting(Refund::id).containsExactly("re_01");
            assertThat(refunds.hasMore()).isTrue();
            Page<Job> jobs = api.listJobs(3, "job_02");
            assertThat(jobs.data())
                    .extracting(Job::id, Job::status, Job::cancelRequested)
                    .containsExactly(tuple("job_01", JobStatus.QUEUED, false));
            assertThatThrownBy(() -> api.listJobs(0, null)).hasMessage("limit must be 1..100, was 0");
        }
    }

    @Test
    void theBuilderChecksWhatItIsGiven() {
        assertThatThrownBy(() -> RetrysafeClient.builder().apiKey(KEY).build())
                .isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> RetrysafeClient.builder()
                        .baseUri(java.net.URI.create("ftp://x/"))
                        .apiKey(KEY)
                        .build())
                .hasMessage("baseUri must be an absolute http(s) URI, was ftp://x/");
        assertThatThrownBy(() -> RetrysafeClient.builder()
                        .baseUri(java.net.URI.create("http://127.0.0.1:1/"))
                        .apiKey("has space")
                        .build())
                .hasMessage("apiKey must be printable ASCII without spaces");
    }
}
