package dev.retrysafe.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.retrysafe.client.ScriptedServer.Answer;
import dev.retrysafe.client.ScriptedServer.Received;
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

    private static String job(String status, int progress) {
        boolean done = status.equals("succeeded");
        return JOB.formatted(status, status.equals("queued") ? "null" : "\"2026-01-01T10:00:01Z\"",
                done ? "\"2026-01-01T10:00:03Z\"" : "null", progress, done ? "\"/v1/jobs/job_01/result\"" : "null");
    }

    private RetrysafeClient client(ScriptedServer server) {
        RetryingHttpClient http = RetryingHttpClient.builder().clock(clock).sleeper(sleeper).build();
        return RetrysafeClient.builder().baseUri(server.uri("/")).apiKey(KEY).http(http).build();
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
        try (ScriptedServer server = api(r -> tries.incrementAndGet() == 1 ? Answer.of(503, "Retry-After", "1")
                : new Answer(201, Map.of("Content-Type", "application/json", "Location", "/v1/payments/pay_01"), PAYMENT, null));
             RetrysafeClient api = client(server)) {
            Payment payment = api.createPayment(500, "eur", "order 1");

            assertThat(payment).isEqualTo(new Payment("pay_01", 500, 0, "eur", "succeeded", "order 1",
                    Instant.parse("2026-01-01T10:00:00.123Z")));
            List<Received> received = server.received();
            assertThat(received).hasSize(2).allSatisfy(r -> {
                assertThat(r.method()).isEqualTo("POST");
                assertThat(r.path()).isEqualTo("/v1/payments");
                assertThat(r.header("Content-Type")).isEqualTo("application/json; charset=utf-8");
                assertThat(r.body()).isEqualTo("{\"amount\":500,\"currency\":\"eur\",\"description\":\"order 1\"}");
            });
            assertThat(received.get(0).header("Idempotency-Key")).isNotNull()
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
            assertThatThrownBy(() -> api.createPayment(500, "eur", null, "")).isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void readsAPaymentAndAPage() throws Exception {
        try (ScriptedServer server = api(r -> r.path().startsWith("/v1/payments?")
                ? Answer.withBody(200, "{\"data\":[" + PAYMENT + "," + PAYMENT.replace("pay_01", "pay_00") + "],\"has_more\":true}")
                : Answer.withBody(200, PAYMENT));
             RetrysafeClient api = client(server)) {
            assertThat(api.getPayment("pay_01").id()).isEqualTo("pay_01");
            Page<Payment> page = api.listPayments(2, "pay_02");
            assertThat(page.data()).extracting(Payment::id).containsExactly("pay_01", "pay_00");
            assertThat(page.hasMore()).isTrue();
            assertThat(page.last().id()).isEqualTo("pay_00");
            assertThat(server.received()).extracting(Received::path)
                    .containsExactly("/v1/payments/pay_01", "/v1/payments?limit=2&starting_after=pay_02");
            assertThatThrownBy(() -> api.listPayments(101, null)).hasMessage("limit must be 1..100, was 101");
        }
    }

    @Test
    void anErrorAnswerIsAnApiExceptionWithItsProblem() throws Exception {
        String problem = """
                {"type":"/problems/refund-exceeds-payment","title":"Refund exceeds payment","status":422,\
                "detail":"Only 300 of 500 remain.","retryable":false}""";
        try (ScriptedServer server = api(r -> new Answer(422, Map.of("Content-Type", "application/problem+json"),
                problem, null));
             RetrysafeClient api = client(server)) {
            ApiException e = catchThrowableOfType(ApiException.class, () -> api.createRefund("pay_01", 400L));
            assertThat(e.status()).isEqualTo(422);
            assertThat(e.problemType()).isEqualTo("/problems/refund-exceeds-payment");
            assertThat(e.problem().detail()).isEqualTo("Only 300 of 500 remain.");
            assertThat(e.problem().retryable()).isFalse();
            assertThat(e.attempts()).hasSize(1);
            assertThat(e.getMessage()).isEqualTo("POST /v1/refunds answered 422: Refund exceeds payment (Only 300 of 500 remain.)");
            assertThat(server.received().getFirst().body()).isEqualTo("{\"payment_id\":\"pay_01\",\"amount\":400}");
        }
    }

    @Test
    void aWrongKeyIsA401() throws Exception {
        try (ScriptedServer server = api(r -> Answer.withBody(200, PAYMENT));
             RetrysafeClient api = RetrysafeClient.builder().baseUri(server.uri("/")).apiKey("rs_wrong_key_000000")
                     .http(RetryingHttpClient.builder().clock(clock).sleeper(sleeper).build()).build()) {
            ApiException e = catchThrowableOfType(ApiException.class, () -> api.getPayment("pay_01"));
            assertThat(e.status()).isEqualTo(401);
            assertThat(e.problem()).isNull();
        }
    }

    @Test
    void aMalformedAnswerIsAnIoExceptionNamingTheMember() throws Exception {
        try (ScriptedServer server = api(r -> Answer.withBody(200, PAYMENT.replace("\"amount\":500", "\"amount\":\"500\"")));
             RetrysafeClient api = client(server)) {
            assertThatThrownBy(() -> api.getPayment("pay_01"))
                    .hasMessage("unexpected answer: member 'amount' of the payment is not an integer");
        }
    }

    @Test
    void refundsAreCreatedAndRead() throws Exception {
        String refund = "{\"id\":\"re_01\",\"object\":\"refund\",\"payment_id\":\"pay_01\",\"amount\":200,"
                + "\"status\":\"succeeded\",\"created_at\":\"2026-01-01T10:00:00Z\"}";
        try (ScriptedServer server = api(r -> r.method().equals("POST") ? Answer.withBody(201, refund)
                : Answer.withBody(200, refund));
             RetrysafeClient api = client(server)) {
            Refund created = api.createRefund("pay_01", null, "refund-1");
            assertThat(created).isEqualTo(new Refund("re_01", "pay_01", 200, "succeeded", Instant.parse("2026-01-01T10:00:00Z")));
            assertThat(api.getRefund("re_01")).isEqualTo(created);
            assertThat(server.received().getFirst().body()).isEqualTo("{\"payment_id\":\"pay_01\"}");
        }
    }

    @Test
    void aReportIsFollowedThroughItsLocationHonouringRetryAfterUntilDone() throws Exception {
        AtomicInteger polls = new AtomicInteger();
        try (ScriptedServer server = api(r -> switch (r.method() + " " + r.path()) {
            case "POST /v1/reports" -> new Answer(202, Map.of("Content-Type", "application/json",
                    "Location", "/v1/jobs/job_01", "Retry-After", "2"), job("queued", 0), null);
            case "GET /v1/jobs/job_01" -> switch (polls.incrementAndGet()) {
                case 1 -> new Answer(200, Map.of("Retry-After", "1"), job("running", 40), null);
                case 2 -> new Answer(200, Map.of("Retry-After", "3"), job("running", 90), null);
                default -> Answer.withBody(200, job("succeeded", 100));
            };
            case "GET /v1/jobs/job_01/result" -> new Answer(200, Map.of("Content-Type", "text/csv"),
                    "id,amount\npay_01,500\n", null);
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
            assertThat(sleeper.waits()).containsExactly(Duration.ofSeconds(2), Duration.ofSeconds(1), Duration.ofSeconds(3));
            assertThat(api.jobResult(done.id(), HttpResponse.BodyHandlers.ofString())).isEqualTo("id,amount\npay_01,500\n");
        }
    }

    @Test
    void followingAJobStopsAtTheTimeoutWithTheLastStateSeen() throws Exception {
        try (ScriptedServer server = api(r -> r.method().equals("POST")
                ? new Answer(202, Map.of("Location", "/v1/jobs/job_01", "Retry-After", "1"), job("queued", 0), null)
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
            case "GET /v1/jobs/job_01/result" -> new Answer(409, Map.of("Content-Type", "application/problem+json"),
                    notReady, null);
            default -> Answer.of(404);
        });
             RetrysafeClient api = client(server)) {
            assertThat(api.getJob("job_01").progress()).isEqualTo(50);
            assertThat(api.cancelJob("job_01").status()).isEqualTo(JobStatus.RUNNING);
            ApiException e = catchThrowableOfType(ApiException.class,
                    () -> api.jobResult("job_01", HttpResponse.BodyHandlers.ofString()));
            assertThat(e.problemType()).isEqualTo("/problems/job-result-not-ready");
        }
    }

    @Test
    void webhookEndpointsAreCreatedReadListedAndDeleted() throws Exception {
        try (ScriptedServer server = api(r -> switch (r.method() + " " + r.path()) {
            case "POST /v1/webhook_endpoints" -> Answer.withBody(201, ENDPOINT + ",\"secret\":\"whsec_c2VjcmV0\"}");
            case "GET /v1/webhook_endpoints/we_01" -> Answer.withBody(200, ENDPOINT + "}");
            case "GET /v1/webhook_endpoints?limit=20" -> Answer.withBody(200, "{\"data\":[" + ENDPOINT + "}],\"has_more\":false}");
            case "DELETE /v1/webhook_endpoints/we_01" -> Answer.withBody(200, "{\"id\":\"we_01\",\"deleted\":true}");
            default -> Answer.of(404);
        });
             RetrysafeClient api = client(server)) {
            CreatedWebhookEndpoint created = api.createWebhookEndpoint("https://example.com/hooks",
                    List.of("payment.succeeded", "refund.created"), "shop");
            WebhookEndpoint expected = new WebhookEndpoint("we_01", "https://example.com/hooks", "shop",
                    List.of("payment.succeeded", "refund.created"), true, Instant.parse("2026-01-01T10:00:00Z"));
            assertThat(created.endpoint()).isEqualTo(expected);
            assertThat(created.secret()).isEqualTo("whsec_c2VjcmV0");
            assertThat(created.toString()).doesNotContain("whsec_");
            assertThat(server.received().getFirst().body()).isEqualTo(
                    "{\"url\":\"https://example.com/hooks\",\"event_types\":[\"payment.succeeded\",\"refund.created\"],"
                            + "\"description\":\"shop\"}");
            assertThat(api.getWebhookEndpoint("we_01")).isEqualTo(expected);
            assertThat(api.listWebhookEndpoints(20, null).data()).containsExactly(expected);
            api.deleteWebhookEndpoint("we_01");
            assertThat(server.received()).extracting(Received::method).containsExactly("POST", "GET", "GET", "DELETE");
        }
    }

    @Test
    void theBuilderChecksWhatItIsGiven() {
        assertThatThrownBy(() -> RetrysafeClient.builder().apiKey(KEY).build()).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> RetrysafeClient.builder().baseUri(java.net.URI.create("ftp://x/")).apiKey(KEY).build())
                .hasMessage("baseUri must be an absolute http(s) URI, was ftp://x/");
        assertThatThrownBy(() -> RetrysafeClient.builder().baseUri(java.net.URI.create("http://127.0.0.1:1/"))
                .apiKey("has space").build()).hasMessage("apiKey must be printable ASCII without spaces");
    }
}
