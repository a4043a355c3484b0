package dev.retrysafe.servlet;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.retrysafe.idempotency.JdbcIdempotencyStore;
import dev.retrysafe.ratelimit.Charge;
import dev.retrysafe.ratelimit.Decision;
import dev.retrysafe.ratelimit.InMemoryRateLimitStore;
import dev.retrysafe.ratelimit.Policy;
import dev.retrysafe.ratelimit.PolicyState;
import dev.retrysafe.ratelimit.RateLimitStore;
import dev.retrysafe.ratelimit.RequestFacts;
import dev.retrysafe.ratelimit.Scope;
import dev.retrysafe.ratelimit.FailMode;
import dev.retrysafe.testkit.FakeClock;
import dev.retrysafe.testkit.StructuredFields;
import dev.retrysafe.testkit.ThrowawayDatabase;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The rate-limit filter in front of the idempotency filter, over real HTTP: headers on every
 * answer, 429 with a problem naming the policy, replays and 409s spending nothing, and a 429
 * never stored as a key's answer.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RateLimitFilterTest {

    private static final String PAYMENT = "{\"amount\":500,\"currency\":\"eur\"}";
    private static final Policy THREE_PER_10S = Policy.builder("account").scope(Scope.account())
            .limit(3, Duration.ofSeconds(10)).build();

    private ThrowawayDatabase database;
    private final FakeClock clock = new FakeClock();
    private TestServer server;
    private HttpClient http;

    @BeforeAll
    void createSchema() throws Exception {
        database = ThrowawayDatabase.h2("ratelimit-filter");
        try (Connection c = database.dataSource().getConnection(); Statement s = c.createStatement()) {
            s.execute(JdbcIdempotencyStore.schemaSql());
            s.execute("CREATE TABLE payments (id VARCHAR(64) PRIMARY KEY, account VARCHAR(64),"
                    + " idem_key VARCHAR(255), body TEXT)");
        }
        http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5)).build();
    }

    @AfterAll
    void dropDatabase() throws Exception {
        http.close();
        database.close();
    }

    @AfterEach
    void stopServer() {
        if (server != null) {
            server.close();
        }
    }

    private void start(RateLimitStore store, Policy policy) throws Exception {
        RateLimitFilter rateLimit = RateLimitFilter.builder()
                .store(store)
                .policy(policy)
                .facts(RateLimitFilterTest::facts)
                .exempt(request -> request.getRequestURI().equals("/v1/budgets"))
                .deferToIdempotencyFilter(true)
                .build();
        IdempotencyFilter idempotency = IdempotencyFilter.builder()
                .dataSource(database.dataSource())
                .store(JdbcIdempotencyStore.create(database.dataSource()))
                .clock(clock)
                .scope(request -> request.getHeader("X-Account"))
                .route("POST", "/v1/payments", true)
                .build();
        server = new TestServer(new PaymentsServlet(new CountDownLatch(1), new CountDownLatch(0)), rateLimit, idempotency);
    }

    private static @Nullable RequestFacts facts(jakarta.servlet.http.HttpServletRequest request) {
        String account = request.getHeader("X-Account");
        return new RequestFacts(null, account, request.getRemoteAddr(), null, null, 1);
    }

    private HttpResponse<String> post(String path, String account, @Nullable String key) throws Exception {
        return post(path, account, key, PAYMENT);
    }

    private HttpResponse<String> post(String path, String account, @Nullable String key, String body) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(server.uri(path))
                .header("X-Account", account)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body));
        if (key != null) {
            request.header("Idempotency-Key", key);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString(UTF_8));
    }

    private static long remaining(HttpResponse<?> response) {
        List<StructuredFields.Member> items = StructuredFields.parseList(
                response.headers().firstValue("RateLimit").orElseThrow(() -> new AssertionError("no RateLimit header")));
        assertThat(items).hasSize(1);
        StructuredFields.Item item = (StructuredFields.Item) items.get(0);
        assertThat(item.value()).isEqualTo("account");
        return ((Number) item.parameters().get("r")).longValue();
    }

    @Test
    void everyAnswerCarriesItsBudgetAndTheFourthIsRefusedNamingThePolicy() throws Exception {
        start(InMemoryRateLimitStore.builder().clock(clock).build(), THREE_PER_10S);

        assertThat(remaining(post("/v1/other", "alice", null))).isEqualTo(2);
        assertThat(remaining(post("/v1/other", "alice", null))).isEqualTo(1);
        HttpResponse<String> third = post("/v1/other", "alice", null);
        assertThat(third.statusCode()).isEqualTo(200);
        assertThat(remaining(third)).isZero();
        HttpResponse<String> fourth = post("/v1/other", "alice", null);

        assertThat(fourth.statusCode()).isEqualTo(429);
        assertThat(remaining(fourth)).isZero();
        long retryAfter = Long.parseLong(fourth.headers().firstValue("Retry-After").orElseThrow());
        assertThat(retryAfter).isBetween(1L, 10L);
        assertThat(fourth.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(fourth.body()).contains("\"type\":\"/problems/rate-limited\"", "\"status\":429",
                "\"policy\":\"account\"", "\"retry_after\":" + retryAfter).doesNotContain("alice");
        assertThat(remaining(post("/v1/other", "bob", null))).as("bob has his own budget").isEqualTo(2);
    }

    @Test
    void replaysAndInFlightAnswersSpendNothingButShowTheBudget() throws Exception {
        start(InMemoryRateLimitStore.builder().clock(clock).build(), THREE_PER_10S);

        HttpResponse<String> first = post("/v1/payments", "carol", "k-1");
        assertThat(first.statusCode()).isEqualTo(201);
        assertThat(remaining(first)).isEqualTo(2);
        for (int i = 0; i < 5; i++) {
            HttpResponse<String> replay = post("/v1/payments", "carol", "k-1");
            assertThat(replay.statusCode()).isEqualTo(201);
            assertThat(replay.headers().firstValue("Idempotent-Replayed")).hasValue("true");
            assertThat(remaining(replay)).as("replay %d spends nothing", i).isEqualTo(2);
        }
        HttpResponse<String> reused = post("/v1/payments", "carol", "k-1", "{\"amount\":1}");
        assertThat(reused.statusCode()).isEqualTo(422);
        assertThat(remaining(reused)).as("a reused key runs nothing and spends nothing").isEqualTo(2);
        HttpResponse<String> missingKey = post("/v1/payments", "carol", null);
        assertThat(missingKey.statusCode()).isEqualTo(400);
        assertThat(remaining(missingKey)).as("a request without a key is an ordinary request: it spends").isEqualTo(1);
        assertThat(remaining(post("/v1/payments", "carol", "k-2"))).isZero();
    }

    @Test
    void aRefusedKeyedRequestIsNotStoredAndRunsOnceTheBudgetIsBack() throws Exception {
        start(InMemoryRateLimitStore.builder().clock(clock).build(), THREE_PER_10S);
        for (int i = 0; i < 3; i++) {
            assertThat(post("/v1/payments", "dave", "spend-" + i).statusCode()).isEqualTo(201);
        }

        HttpResponse<String> refused = post("/v1/payments", "dave", "late");
        assertThat(refused.statusCode()).isEqualTo(429);
        assertThat(count("SELECT COUNT(*) FROM idempotency_keys WHERE idem_key = 'late'"))
                .as("the 429 is not the key's answer, nor is the key held").isZero();
        assertThat(count("SELECT COUNT(*) FROM payments WHERE idem_key = 'late'")).isZero();

        clock.advance(Duration.ofSeconds(Long.parseLong(refused.headers().firstValue("Retry-After").orElseThrow())));
        HttpResponse<String> retried = post("/v1/payments", "dave", "late");

        assertThat(retried.statusCode()).isEqualTo(201);
        assertThat(retried.headers().firstValue("Idempotent-Replayed")).isEmpty();
        assertThat(count("SELECT COUNT(*) FROM payments WHERE idem_key = 'late'")).isEqualTo(1);
    }

    @Test
    void exemptRequestsOnlyLookAtTheirBudget() throws Exception {
        start(InMemoryRateLimitStore.builder().clock(clock).build(), THREE_PER_10S);
        post("/v1/other", "erin", null);
        for (int i = 0; i < 5; i++) {
            HttpResponse<String> look = post("/v1/budgets", "erin", null);
            assertThat(look.statusCode()).isEqualTo(200);
            assertThat(remaining(look)).isEqualTo(2);
        }
    }

    @Test
    void anUnreachableStoreWithAFailClosedPolicyAnswers503WithRetryAfter() throws Exception {
        Policy closed = Policy.builder("strict").scope(Scope.account()).limit(3, Duration.ofSeconds(10))
                .failMode(FailMode.CLOSED).build();
        AtomicReference<List<Charge>> seen = new AtomicReference<>();
        RateLimitStore down = new RateLimitStore() {
            @Override
            public Decision decide(String partition, List<Charge> charges) {
                seen.set(charges);
                return new Decision.Unavailable(closed, 2, List.of(PolicyState.unknown(closed, "frank", 0)));
            }

            @Override
            public Decision peek(String partition, List<Charge> charges) {
                return decide(partition, charges);
            }

            @Override
            public void close() {
            }
        };
        start(down, closed);

        HttpResponse<String> answer = post("/v1/payments", "frank", "k-503");

        assertThat(answer.statusCode()).isEqualTo(503);
        assertThat(answer.headers().firstValue("Retry-After")).hasValue("2");
        assertThat(answer.body()).contains("\"type\":\"/problems/rate-limit-unavailable\"", "\"retry_after\":2");
        assertThat(seen.get()).extracting(Charge::key).containsExactly("frank");
        assertThat(count("SELECT COUNT(*) FROM idempotency_keys WHERE idem_key = 'k-503'")).isZero();
    }

    private long count(String sql) throws Exception {
        try (Connection c = database.dataSource().getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
