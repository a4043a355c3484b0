package dev.retrysafe.servlet;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.retrysafe.idempotency.IdempotencyKey;
import dev.retrysafe.idempotency.JdbcIdempotencyStore;
import dev.retrysafe.ratelimit.Charge;
import dev.retrysafe.ratelimit.Decision;
import dev.retrysafe.ratelimit.FailMode;
import dev.retrysafe.ratelimit.InMemoryRateLimitStore;
import dev.retrysafe.ratelimit.Policy;
import dev.retrysafe.ratelimit.PolicyState;
import dev.retrysafe.ratelimit.RateLimitStore;
import dev.retrysafe.ratelimit.RequestFacts;
import dev.retrysafe.ratelimit.Scope;
import dev.retrysafe.servlet.internal.RateLimitHandler;
import dev.retrysafe.testkit.FakeClock;
import dev.retrysafe.testkit.RawHttp;
import dev.retrysafe.testkit.StructuredFields;
import dev.retrysafe.testkit.ThrowawayDatabase;
import java.io.BufferedInputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
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
    private static final Policy THREE_PER_10S = Policy.builder("account")
            .scope(Scope.account())
            .limit(3, Duration.ofSeconds(10))
            .build();

    private ThrowawayDatabase database;
    private final FakeClock clock = new FakeClock();
    private TestServer server;
    private HttpClient http;
    /** Counted down when a request with {@code X-Test-Behaviour: block} is inside the handler. */
    private CountDownLatch entered = new CountDownLatch(1);
    /** Lets such a request finish. */
    private CountDownLatch proceed = new CountDownLatch(1);

    @BeforeAll
    void createSchema() throws Exception {
        database = ThrowawayDatabase.h2("ratelimit-filter");
        try (Connection c = database.dataSource().getConnection();
                Statement s = c.createStatement()) {
            s.execute(JdbcIdempotencyStore.schemaSql());
            s.execute("CREATE TABLE payments (id VARCHAR(64) PRIMARY KEY, account VARCHAR(64),"
                    + " idem_key VARCHAR(255), body TEXT)");
        }
        http = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5))
                .build();
    }

    @AfterAll
    void dropDatabase() throws Exception {
        http.close();
        database.close();
    }

    @AfterEach
    void stopServer() {
        proceed.countDown(); // never leave a request blocked behind a failed assertion
        if (server != null) {
            server.close();
        }
    }

    private void start(RateLimitStore store, Policy policy) throws Exception {
        start(store, policy, Duration.ZERO);
    }

    private void start(RateLimitStore store, Policy policy, Duration retryAfterJitter) throws Exception {
        entered = new CountDownLatch(1);
        proceed = new CountDownLatch(1);
        RateLimitFilter rateLimit = RateLimitFilter.builder()
                .store(store)
                .policy(policy)
                .retryAfterJitter(retryAfterJitter)
                .facts(RateLimitFilterTest::facts)
                .exempt(request -> request.getRequestURI().equals("/v1/budgets"))
                .build();
        IdempotencyFilter idempotency = IdempotencyFilter.builder()
                .dataSource(database.dataSource())
                .store(JdbcIdempotencyStore.create(database.dataSource()))
                .clock(clock)
                .scope(request -> request.getHeader("X-Account"))
                .route("POST", "/v1/payments", true)
                .build();
        server = new TestServer(new PaymentsServlet(entered, proceed), filters(rateLimit, idempotency));
    }

    /** The rate limit and the idempotency filter as installed, here one by one in that order. */
    protected jakarta.servlet.Filter[] filters(RateLimitFilter rateLimit, IdempotencyFilter idempotency) {
        return new jakarta.servlet.Filter[] {rateLimit, idempotency};
    }

    private static @Nullable RequestFacts facts(jakarta.servlet.http.HttpServletRequest request) {
        String account = request.getHeader("X-Account");
        return new RequestFacts(null, account, request.getRemoteAddr(), null, null, 1);
    }

    private HttpResponse<String> post(String path, String account, @Nullable String key) throws Exception {
        return post(path, account, key, PAYMENT);
    }

    private HttpResponse<String> post(String path, String account, @Nullable String key, String body) throws Exception {
        return http.send(request(path, account, key, body).build(), HttpResponse.BodyHandlers.ofString(UTF_8));
    }

    private HttpRequest.Builder request(String path, String account, @Nullable String key, String body) {
        HttpRequest.Builder request = HttpRequest.newBuilder(server.uri(path))
                .header("X-Account", account)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body));
        if (key != null) {
            request.header("Idempotency-Key", key);
        }
        return request;
    }

    private static long remaining(HttpResponse<?> response) {
        return remaining(response.headers()
                .firstValue("RateLimit")
                .orElseThrow(() -> new AssertionError("no RateLimit header")));
    }

    private static long remaining(@Nullable String rateLimitHeader) {
        assertThat(rateLimitHeader).as("RateLimit header").isNotNull();
        List<StructuredFields.Member> items = StructuredFields.parseList(rateLimitHeader);
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
        long retryAfter =
                Long.parseLong(fourth.headers().firstValue("Retry-After").orElseThrow());
        assertThat(retryAfter).isBetween(1L, 10L);
        assertThat(fourth.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(fourth.body())
                .contains(
                        "\"type\":\"/problems/rate-limited\"",
                        "\"status\":429",
                        "\"policy\":\"account\"",
                        "\"retry_after\":" + retryAfter)
                .doesNotContain("alice");
        assertThat(remaining(post("/v1/other", "bob", null)))
                .as("bob has his own budget")
                .isEqualTo(2);
    }

    /**
     * With jitter, a refusal's Retry-After is its wait (4 s: 3 per 10 s, one unit every 3.33 s,
     * rounded up) plus up to the jitter, drawn per refusal; the problem body says the same figure.
     * Forty refusals all drawing one value would happen once in 6^39 runs.
     */
    @Test
    void jitterSpreadsRefusalsRetryAfterOverTheWaitPlusUpToTheJitter() throws Exception {
        start(InMemoryRateLimitStore.builder().clock(clock).build(), THREE_PER_10S, Duration.ofSeconds(5));
        for (int i = 0; i < 3; i++) {
            assertThat(post("/v1/other", "hana", null).statusCode()).isEqualTo(200);
        }
        Set<Long> seen = new TreeSet<>();
        for (int i = 0; i < 40; i++) {
            HttpResponse<String> refused = post("/v1/other", "hana", null);
            assertThat(refused.statusCode()).isEqualTo(429);
            long retryAfter =
                    Long.parseLong(refused.headers().firstValue("Retry-After").orElseThrow());
            assertThat(retryAfter).isBetween(4L, 9L);
            assertThat(refused.body()).contains("\"retry_after\":" + retryAfter);
            seen.add(retryAfter);
        }
        assertThat(seen).as("Retry-After values drawn").hasSizeGreaterThan(1);
        assertThatThrownBy(() -> RateLimitFilter.builder().retryAfterJitter(Duration.ofMillis(1500)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("whole seconds");
    }

    @Test
    void policiesComeFromTheListOrFromVersionsNotBoth() {
        dev.retrysafe.ratelimit.PolicyVersions versions = dev.retrysafe.ratelimit.PolicyVersions.builder()
                .current("v2", "https://example.com/v2", List.of(THREE_PER_10S))
                .build();
        assertThatThrownBy(() -> RateLimitFilter.builder()
                        .store(InMemoryRateLimitStore.builder().build())
                        .facts(request -> null)
                        .policy(THREE_PER_10S)
                        .versions(versions)
                        .build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("not both");
    }

    /**
     * A refused request's body is read and dropped, so its connection carries the next request
     * (two refusals answered on one socket); a body beyond what is worth reading closes the
     * connection, and the refusal says so. Before, the body was left unread and the server
     * closed the connection after the refusal without saying so: a client's next request on it
     * got no answer.
     */
    @Test
    void aRefusalKeepsItsConnectionUsableOrSaysItCloses() throws Exception {
        start(InMemoryRateLimitStore.builder().clock(clock).build(), THREE_PER_10S);
        for (int i = 0; i < 3; i++) {
            assertThat(post("/v1/other", "jude", null).statusCode()).isEqualTo(200);
        }
        try (Socket socket = new Socket("127.0.0.1", server.uri("/").getPort())) {
            socket.setSoTimeout(10_000);
            InputStream in = new BufferedInputStream(socket.getInputStream());
            for (int i = 0; i < 2; i++) {
                socket.getOutputStream()
                        .write(rawPost(PAYMENT.getBytes(UTF_8).length).getBytes(UTF_8));
                socket.getOutputStream().write(PAYMENT.getBytes(UTF_8));
                RawHttp.Answer refused = RawHttp.read(in, false);
                assertThat(refused.status())
                        .as("refusal %d on one connection", i)
                        .isEqualTo(429);
                assertThat(refused.header("Connection")).isNull();
            }
        }
        int big = 2 * (int) RateLimitHandler.DRAIN_LIMIT;
        try (Socket socket = new Socket("127.0.0.1", server.uri("/").getPort())) {
            socket.setSoTimeout(10_000);
            socket.getOutputStream().write(rawPost(big).getBytes(UTF_8)); // the body never comes
            RawHttp.Answer refused = RawHttp.read(socket.getInputStream(), false);
            assertThat(refused.status()).isEqualTo(429);
            assertThat(refused.header("Connection")).isEqualTo("close");
        }
    }

    private static String rawPost(long contentLength) {
        return "POST /v1/other HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Account: jude\r\n"
                + "Content-Type: application/json\r\nContent-Length: " + contentLength + "\r\n\r\n";
    }

    @Test
    void replaysSpendNothingButShowTheBudget() throws Exception {
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
        assertThat(remaining(post("/v1/payments", "carol", "k-2"))).isEqualTo(1);
    }

    /**
     * What a client gets wrong is charged, keyed or not, so that a runaway loop of mistakes is
     * limited like any other: a key reused with another body (422), a malformed key (400), a body
     * too large (413), no key (400). Once the budget is gone the loop gets 429s.
     */
    @Test
    void clientErrorsSpendLikeAnyRequestUntilRefused() throws Exception {
        Policy five = Policy.builder("account")
                .scope(Scope.account())
                .limit(5, Duration.ofSeconds(10))
                .build();
        start(InMemoryRateLimitStore.builder().clock(clock).build(), five);
        assertThat(post("/v1/payments", "ivan", "k-1").statusCode()).isEqualTo(201);

        HttpResponse<String> reused = post("/v1/payments", "ivan", "k-1", "{\"amount\":1}");
        HttpResponse<String> malformed = post("/v1/payments", "ivan", "k".repeat(IdempotencyKey.MAX_LENGTH + 1));
        // sent as a careful client sends a large body, asking first: a 413 that comes while the body
        // is still on its way is followed by the server's close, whose reset can destroy the answer
        // before the client reads it ("header parser received no bytes", seen on a loaded machine)
        HttpResponse<String> tooLarge = http.send(
                request("/v1/payments", "ivan", "k-big", "x".repeat(2 * 1024 * 1024))
                        .expectContinue(true)
                        .build(),
                HttpResponse.BodyHandlers.ofString(UTF_8));
        HttpResponse<String> missing = post("/v1/payments", "ivan", null);

        assertThat(List.of(reused, malformed, tooLarge, missing))
                .extracting(HttpResponse::statusCode)
                .containsExactly(422, 400, 413, 400);
        assertThat(List.of(reused, malformed, tooLarge, missing))
                .extracting(RateLimitFilterTest::remaining)
                .as("each mistake spends a unit")
                .containsExactly(3L, 2L, 1L, 0L);
        HttpResponse<String> loop = post("/v1/payments", "ivan", "k-1", "{\"amount\":1}");
        assertThat(loop.statusCode()).as("the loop is limited").isEqualTo(429);
        assertThat(loop.body()).contains("\"policy\":\"account\"");
        assertThat(count("SELECT COUNT(*) FROM payments WHERE account = 'ivan'"))
                .isEqualTo(1);
    }

    /**
     * A keyed request is charged as it arrives, before its body: a client that opens requests and
     * withholds their bodies has spent its budget on them while they wait, instead of holding
     * them open for free until the idempotency filter could read the body and claim the key.
     */
    @Test
    void aKeyedRequestIsChargedBeforeItsBodyArrives() throws Exception {
        start(InMemoryRateLimitStore.builder().clock(clock).build(), THREE_PER_10S);
        byte[] body = PAYMENT.getBytes(UTF_8);
        try (Socket socket = new Socket("127.0.0.1", server.uri("/").getPort())) {
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            out.write(("POST /v1/payments HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Account: hugo\r\nIdempotency-Key: k-slow\r\n"
                            + "Content-Type: application/json\r\nContent-Length: " + body.length + "\r\n\r\n")
                    .getBytes(UTF_8));
            out.write(body, 0, 5);
            out.flush();
            await().atMost(Duration.ofSeconds(10))
                    .untilAsserted(() -> assertThat(remaining(post("/v1/budgets", "hugo", null)))
                            .as("spent while its body waits")
                            .isEqualTo(2));

            out.write(body, 5, body.length - 5);
            out.flush();
            RawHttp.Answer answer = RawHttp.read(socket.getInputStream(), false);

            assertThat(answer.status()).isEqualTo(201);
            assertThat(remaining(answer.header("RateLimit"))).isEqualTo(2);
        }
        assertThat(remaining(post("/v1/budgets", "hugo", null)))
                .as("charged once")
                .isEqualTo(2);
    }

    @Test
    void aRequestWhoseKeyIsStillRunningAnswers409AndSpendsNothing() throws Exception {
        start(InMemoryRateLimitStore.builder().clock(clock).build(), THREE_PER_10S);
        CompletableFuture<HttpResponse<String>> first = http.sendAsync(
                request("/v1/payments", "gina", "k-held", PAYMENT)
                        .header("X-Test-Behaviour", "block")
                        .build(),
                HttpResponse.BodyHandlers.ofString(UTF_8));
        assertThat(entered.await(10, TimeUnit.SECONDS))
                .as("the first request is in its handler")
                .isTrue();

        // three of them: had each spent a unit, the third would be refused (429) instead
        for (int i = 0; i < 3; i++) {
            HttpResponse<String> concurrent = post("/v1/payments", "gina", "k-held");
            assertThat(concurrent.statusCode())
                    .as("retry %d while the first runs", i)
                    .isEqualTo(409);
            assertThat(concurrent.body()).contains("idempotency-key-in-use");
            assertThat(remaining(concurrent))
                    .as("a 409 spends nothing (retry %d)", i)
                    .isEqualTo(2);
        }
        proceed.countDown();
        HttpResponse<String> done = first.get(10, TimeUnit.SECONDS);

        assertThat(done.statusCode()).isEqualTo(201);
        assertThat(remaining(done)).isEqualTo(2);
        assertThat(remaining(post("/v1/other", "gina", null)))
                .as("only the first request was charged")
                .isEqualTo(1);
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
                .as("the 429 is not the key's answer, nor is the key held")
                .isZero();
        assertThat(count("SELECT COUNT(*) FROM payments WHERE idem_key = 'late'"))
                .isZero();

        clock.advance(Duration.ofSeconds(
                Long.parseLong(refused.headers().firstValue("Retry-After").orElseThrow())));
        HttpResponse<String> retried = post("/v1/payments", "dave", "late");

        assertThat(retried.statusCode()).isEqualTo(201);
        assertThat(retried.headers().firstValue("Idempotent-Replayed")).isEmpty();
        assertThat(count("SELECT COUNT(*) FROM payments WHERE idem_key = 'late'"))
                .isEqualTo(1);
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
        Policy closed = Policy.builder("strict")
                .scope(Scope.account())
                .limit(3, Duration.ofSeconds(10))
                .failMode(FailMode.CLOSED)
                .build();
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
            public Decision refund(String partition, List<Charge> charges) {
                return decide(partition, charges);
            }

            @Override
            public void close() {}
        };
        start(down, closed);

        HttpResponse<String> answer = post("/v1/payments", "frank", "k-503");

        assertThat(answer.statusCode()).isEqualTo(503);
        assertThat(answer.headers().firstValue("Retry-After")).hasValue("2");
        assertThat(answer.body()).contains("\"type\":\"/problems/rate-limit-unavailable\"", "\"retry_after\":2");
        assertThat(seen.get()).extracting(Charge::key).containsExactly("frank");
        assertThat(count("SELECT COUNT(*) FROM idempotency_keys WHERE idem_key = 'k-503'"))
                .isZero();
    }

    private long count(String sql) throws Exception {
        try (Connection c = database.dataSource().getConnection();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
