package dev.retrysafe.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Payments and refunds over real HTTP, written once and run against every database
 * ({@link PaymentsApiH2Test}, {@link PaymentsApiPostgresTest}).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class PaymentsApiContract {

    private TestServer server;
    private Api api;
    private Api other;

    /** Starts the server under test. */
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

    private JsonNode pay(Api client, long amount) {
        Api.Answer a = client.post("/v1/payments", "{\"amount\": " + amount + ", \"currency\": \"eur\"}");
        assertThat(a.status()).as(a.raw().body()).isEqualTo(201);
        return a.body();
    }

    @Test
    void createsPaymentWithLocationAndReadsItBack() {
        Api.Answer created =
                api.post("/v1/payments", "{\"amount\": 500, \"currency\": \"eur\", \"description\": \"tea\"}");

        assertThat(created.status()).isEqualTo(201);
        JsonNode p = created.body();
        assertThat(p.get("id").asText()).matches("pay_[0-9a-z]{26}");
        assertThat(p.get("amount").asLong()).isEqualTo(500);
        assertThat(p.get("currency").asText()).isEqualTo("eur");
        assertThat(p.get("status").asText()).isEqualTo("succeeded");
        assertThat(p.get("description").asText()).isEqualTo("tea");
        assertThat(p.get("created_at").asText()).matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d(\\.\\d+)?Z");
        assertThat(created.header("Location"))
                .isEqualTo("/v1/payments/" + p.get("id").asText());

        Api.Answer read = api.get(created.header("Location"));
        assertThat(read.status()).isEqualTo(200);
        assertThat(read.body()).isEqualTo(p);
    }

    @Test
    void listsPaymentsNewestFirstWithCursorPagination() {
        Api fresh = new Api(server.baseUri(), server.otherApiKey());
        List<String> made = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            made.add(pay(fresh, 100 + i).get("id").asText());
        }
        // other tests of this class may add payments to this account: page through all of them
        List<String> seen = new ArrayList<>();
        String cursor = null;
        boolean more = true;
        while (more) {
            Api.Answer page = fresh.get("/v1/payments?limit=2" + (cursor == null ? "" : "&starting_after=" + cursor));
            assertThat(page.status()).isEqualTo(200);
            assertThat(page.body().get("data").size()).isLessThanOrEqualTo(2);
            page.body().get("data").forEach(p -> seen.add(p.get("id").asText()));
            more = page.body().get("has_more").asBoolean();
            cursor = seen.get(seen.size() - 1);
        }
        assertThat(seen).containsSubsequence(made.reversed());
        assertThat(seen).isSortedAccordingTo((a, b) -> b.compareTo(a));
        assertThat(new HashSet<>(seen)).hasSameSizeAs(seen);
    }

    @Test
    void defaultLimitIsTwenty() {
        for (int i = 0; i < 21; i++) {
            pay(api, 1);
        }
        Api.Answer page = api.get("/v1/payments");
        assertThat(page.body().get("data").size()).isEqualTo(20);
        assertThat(page.body().get("has_more").asBoolean()).isTrue();
    }

    @Test
    void refundsPartlyThenTheRestAndRejectsMore() {
        String payment = pay(api, 1000).get("id").asText();

        Api.Answer first = api.post("/v1/refunds", "{\"payment_id\": \"" + payment + "\", \"amount\": 300}");
        assertThat(first.status()).as(first.raw().body()).isEqualTo(201);
        assertThat(first.body().get("id").asText()).startsWith("re_");
        assertThat(first.body().get("payment_id").asText()).isEqualTo(payment);
        assertThat(first.body().get("amount").asLong()).isEqualTo(300);
        assertThat(first.body().get("status").asText()).isEqualTo("succeeded");
        assertThat(first.header("Location"))
                .isEqualTo("/v1/refunds/" + first.body().get("id").asText());

        Api.Answer tooMuch = api.post("/v1/refunds", "{\"payment_id\": \"" + payment + "\", \"amount\": 701}");
        assertThat(tooMuch.status()).isEqualTo(422);
        assertThat(tooMuch.body().get("type").asText()).isEqualTo("/problems/refund-exceeds-payment");

        Api.Answer rest = api.post("/v1/refunds", "{\"payment_id\": \"" + payment + "\"}");
        assertThat(rest.status()).isEqualTo(201);
        assertThat(rest.body().get("amount").asLong()).isEqualTo(700);

        Api.Answer none = api.post("/v1/refunds", "{\"payment_id\": \"" + payment + "\"}");
        assertThat(none.status()).isEqualTo(422);

        assertThat(api.get("/v1/payments/" + payment)
                        .body()
                        .get("amount_refunded")
                        .asLong())
                .isEqualTo(1000);
        assertThat(api.get("/v1/refunds/" + first.body().get("id").asText()).body())
                .isEqualTo(first.body());
        assertThat(api.get("/v1/refunds?limit=100").body().get("data").findValuesAsText("id"))
                .contains(first.body().get("id").asText(), rest.body().get("id").asText());
    }

    @Test
    void concurrentRefundsNeverExceedThePayment() throws Exception {
        String payment = pay(api, 1000).get("id").asText();
        int workers = 8;
        CountDownLatch gate = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(workers);
        try {
            List<Future<Integer>> results = new ArrayList<>();
            for (int i = 0; i < workers; i++) {
                Callable<Integer> refund = () -> {
                    assertThat(gate.await(10, TimeUnit.SECONDS)).isTrue();
                    return api.post("/v1/refunds", "{\"payment_id\": \"" + payment + "\", \"amount\": 300}")
                            .status();
                };
                results.add(pool.submit(refund));
            }
            gate.countDown();
            List<Integer> statuses = new ArrayList<>();
            for (Future<Integer> f : results) {
                statuses.add(f.get(30, TimeUnit.SECONDS));
            }
            assertThat(statuses).filteredOn(s -> s == 201).hasSize(3);
            assertThat(statuses).filteredOn(s -> s == 422).hasSize(workers - 3);
        } finally {
            pool.shutdownNow();
            assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        }
        assertThat(api.get("/v1/payments/" + payment)
                        .body()
                        .get("amount_refunded")
                        .asLong())
                .isEqualTo(900);
    }

    @Test
    void anotherAccountsPaymentsAndRefundsAreNotFound() {
        String payment = pay(api, 400).get("id").asText();
        String refund = api.post("/v1/refunds", "{\"payment_id\": \"" + payment + "\", \"amount\": 1}")
                .body()
                .get("id")
                .asText();

        assertThat(other.get("/v1/payments/" + payment).status()).isEqualTo(404);
        assertThat(other.get("/v1/refunds/" + refund).status()).isEqualTo(404);
        Api.Answer refundOfOthers = other.post("/v1/refunds", "{\"payment_id\": \"" + payment + "\"}");
        assertThat(refundOfOthers.status()).isEqualTo(404);
        assertThat(refundOfOthers.body().get("type").asText()).isEqualTo("/problems/not-found");
        Set<String> visible = new HashSet<>(
                other.get("/v1/payments?limit=100").body().get("data").findValuesAsText("id"));
        assertThat(visible).doesNotContain(payment);
    }

    /** Regression: PostgreSQL refuses NUL in text, which surfaced as a 500. */
    @Test
    void textThatCannotBeStoredIsAValidationProblemOnEveryDatabase() {
        for (String description : new String[] {"nul\\u0000here", "bell\\u0007", "lone \\ud800 surrogate"}) {
            Api.Answer a = api.post(
                    "/v1/payments", "{\"amount\": 5, \"currency\": \"eur\", \"description\": \"" + description + "\"}");
            assertThat(a.status()).as(description + ": " + a.raw().body()).isEqualTo(400);
            assertThat(a.body().get("errors").findValuesAsText("field")).containsExactly("description");
        }
        Api.Answer fine = api.post(
                "/v1/payments",
                "{\"amount\": 5, \"currency\": \"eur\", \"description\": \"line\\nbreak \\ud83d\\ude00\"}");
        assertThat(fine.status()).as(fine.raw().body()).isEqualTo(201);
        assertThat(fine.body().get("description").asText()).isEqualTo("line\nbreak \ud83d\ude00");
    }

    /** Regression: HEAD answered 200 with an empty text/plain body for every path. */
    @Test
    void headAnswersLikeGetWithoutABody() throws Exception {
        String id = pay(api, 300).get("id").asText();
        java.util.function.Function<String, java.net.http.HttpResponse<String>> head =
                path -> api.send(api.request(path)
                                .method("HEAD", java.net.http.HttpRequest.BodyPublishers.noBody())
                                .build())
                        .raw();

        assertThat(head.apply("/v1/payments/" + id).statusCode()).isEqualTo(200);
        assertThat(head.apply("/v1/payments/" + id).body()).isEmpty();
        assertThat(head.apply("/v1/payments/pay_01m8vbckb8wnw05ky22g9310j6").statusCode())
                .isEqualTo(404);
        assertThat(head.apply("/v1/payments?limit=abc").statusCode()).isEqualTo(400);
        assertThat(head.apply("/v1/refunds").statusCode()).isEqualTo(200);
        assertThat(head.apply("/ready").statusCode()).isEqualTo(200);
    }

    @Test
    void unknownIdsAreNotFoundProblems() {
        Api.Answer unknown = api.get("/v1/payments/pay_01m8vbckb8wnw05ky22g9310j6");
        assertThat(unknown.status()).isEqualTo(404);
        assertThat(unknown.contentType()).startsWith("application/problem+json");
        assertThat(api.get("/v1/payments/not-an-id").status()).isEqualTo(404);
        assertThat(api.get("/v1/refunds/re_zzz").status()).isEqualTo(404);
        assertThat(api.post("/v1/refunds", "{\"payment_id\": \"pay_01m8vbckb8wnw05ky22g9310j6\"}")
                        .status())
                .isEqualTo(404);
    }

    @Test
    void eventsAreWrittenWithTheirChange() throws Exception {
        String payment = pay(api, 250).get("id").asText();
        api.post("/v1/refunds", "{\"payment_id\": \"" + payment + "\", \"amount\": 50}");

        try (var c = java.sql.DriverManager.getConnection(
                        server.config().database().jdbcUrl(server.config().dataDir()),
                        server.config().database().user(),
                        server.config().database().password());
                var ps = c.prepareStatement("SELECT type FROM events WHERE data LIKE ? ORDER BY id")) {
            ps.setString(1, "%" + payment + "%");
            List<String> types = new ArrayList<>();
            try (var rs = ps.executeQuery()) {
                while (rs.next()) {
                    types.add(rs.getString(1));
                }
            }
            assertThat(types).containsExactly("payment.succeeded", "refund.created");
        }
    }
}
