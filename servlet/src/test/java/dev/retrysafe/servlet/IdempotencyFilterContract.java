package dev.retrysafe.servlet;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.retrysafe.idempotency.ClaimMode;
import dev.retrysafe.idempotency.JdbcIdempotencyStore;
import dev.retrysafe.testkit.CountingDataSource;
import dev.retrysafe.testkit.FakeClock;
import dev.retrysafe.testkit.ThrowawayDatabase;
import java.io.ByteArrayInputStream;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The idempotency filter end to end: real HTTP to an embedded Jetty, a servlet that writes through
 * the request's transaction, and a real database supplied by each subclass.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class IdempotencyFilterContract {

    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final int MAX_BODY = 4096;
    private static final String PAYMENT = "{\"amount\":500,\"currency\":\"eur\",\"description\":\"caf\u00e9\"}";

    private CountingDataSource dataSource;
    private FakeClock clock;
    private CountDownLatch entered;
    private CountDownLatch proceed;
    private TestServer server;
    private HttpClient http;

    /** A new, empty database of this test class's own. */
    protected abstract ThrowawayDatabase openDatabase();

    /** How the store holds claims. */
    protected ClaimMode mode() {
        return ClaimMode.ROWS;
    }

    private ThrowawayDatabase database;

    /** The filter the tests' server runs: {@code filter} itself, or something built from it. */
    protected jakarta.servlet.Filter installed(IdempotencyFilter filter) {
        return filter;
    }

    @BeforeAll
    void createSchema() throws Exception {
        database = openDatabase();
        dataSource = database.dataSource();
        try (Connection c = dataSource.getConnection();
                Statement s = c.createStatement()) {
            s.execute(JdbcIdempotencyStore.schemaSql());
            s.execute("CREATE TABLE payments (id VARCHAR(64) PRIMARY KEY, account VARCHAR(64),"
                    + " idem_key VARCHAR(255), body TEXT)");
        }
    }

    @AfterAll
    void dropDatabase() throws Exception {
        if (database != null) {
            database.close();
        }
    }

    @BeforeEach
    void startServer() throws Exception {
        execute("DELETE FROM idempotency_keys");
        execute("DELETE FROM payments");
        clock = new FakeClock();
        entered = new CountDownLatch(1);
        proceed = new CountDownLatch(1);
        IdempotencyFilter filter = IdempotencyFilter.builder()
                .dataSource(dataSource)
                .store(JdbcIdempotencyStore.builder(dataSource).claims(mode()).build())
                .clock(clock)
                .scope(request -> request.getHeader("X-Account"))
                .route("POST", "/v1/payments", true)
                .route("post", "/v1/payments/{id}/capture", true)
                .lease(LEASE)
                .maxBodyBytes(MAX_BODY)
                .build();
        server = new TestServer(installed(filter), new PaymentsServlet(entered, proceed));
        http = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5))
                .build();
    }

    @AfterEach
    void stopServer() throws Exception {
        proceed.countDown(); // never leave a request blocked behind a failed assertion
        http.close();
        server.close();
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(dataSource.openConnections())
                        .as("connections left open")
                        .isZero());
    }

    /**
     * A refusal before the body is read (no key, a malformed key) reads and drops the body first,
     * so the connection carries the client's next request; left unread, the server closed the
     * connection after answering without saying so and the next request got no answer.
     */
    @Test
    void aRefusalBeforeTheBodyKeepsItsConnectionUsable() throws Exception {
        byte[] body = "{\"amount\":500}".getBytes(UTF_8);
        try (java.net.Socket socket =
                new java.net.Socket("127.0.0.1", server.uri("/").getPort())) {
            socket.setSoTimeout(10_000);
            java.io.InputStream in = new java.io.BufferedInputStream(socket.getInputStream());
            for (String keyHeader : List.of("", "Idempotency-Key: \"unterminated\r\n", "")) {
                socket.getOutputStream()
                        .write(("POST /v1/payments HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Account: acme\r\n" + keyHeader
                                        + "Content-Type: application/json\r\nContent-Length: " + body.length
                                        + "\r\n\r\n")
                                .getBytes(UTF_8));
                socket.getOutputStream().flush();
                // the body comes a moment after the head, as from a client that streams it: a
                // refusal that does not wait for it leaves it unread when the answer is done
                Thread.sleep(200);
                socket.getOutputStream().write(body);
                dev.retrysafe.testkit.RawHttp.Answer refused = dev.retrysafe.testkit.RawHttp.read(in, false);
                assertThat(refused.status()).as(refused.raw()).isEqualTo(400);
                assertThat(refused.header("Connection")).isNull();
            }
        }
    }

    // --- replay -----------------------------------------------------------------------------------

    /** Regression: a trailing slash skipped the required key and scoped the key apart. */
    @Test
    void aTrailingSlashNamesTheSameRouteAndKey() throws Exception {
        HttpResponse<byte[]> keyless = post("/v1/payments/", null, PAYMENT);
        HttpResponse<byte[]> first = post("/v1/payments", "slash-1", PAYMENT);
        HttpResponse<byte[]> trailing = post("/v1/payments/", "slash-1", PAYMENT);

        assertProblem(keyless, 400, "idempotency-key-missing", false);
        assertThat(first.statusCode()).isEqualTo(201);
        // (Jetty itself refuses "//" in a path with 400, so only the trailing slash reaches us)
        assertThat(trailing.statusCode()).isEqualTo(201);
        assertThat(trailing.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(trailing.body()).isEqualTo(first.body());
    }

    @Test
    void replaysTheStoredAnswerByteForByteWithTheReplayHeader() throws Exception {
        HttpResponse<byte[]> first = post("/v1/payments", "key-1", PAYMENT);
        HttpResponse<byte[]> retry = post("/v1/payments", "key-1", PAYMENT);

        assertThat(first.statusCode()).isEqualTo(201);
        assertThat(first.headers().firstValue("Idempotent-Replayed")).isEmpty();
        assertThat(first.headers().firstValue("X-Not-Stored")).hasValue("transient");
        assertThat(retry.statusCode()).isEqualTo(201);
        assertThat(retry.body()).isEqualTo(first.body());
        assertThat(retry.headers().firstValue("Location"))
                .isEqualTo(first.headers().firstValue("Location"))
                .hasValueSatisfying(location -> assertThat(location).startsWith("/v1/payments/pay_"));
        assertThat(retry.headers().firstValue("Content-Type"))
                .isEqualTo(first.headers().firstValue("Content-Type"))
                .hasValueSatisfying(type -> assertThat(type).startsWith("application/json"));
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(retry.headers().firstValue("X-Not-Stored"))
                .as("only the configured headers are stored")
                .isEmpty();
        assertThat(paymentCount()).isEqualTo(1);
    }

    @Test
    void handlerSeesTheUnquotedKeyAndCanReadTheBodyAgain() throws Exception {
        HttpResponse<byte[]> response = post("/v1/payments", "\"quoted\\\\key\"", PAYMENT);

        assertThat(response.statusCode()).isEqualTo(201);
        assertThat(text(response))
                .contains("\"key\":\"quoted\\key\"")
                .contains("\"request_bytes\":" + PAYMENT.length());
    }

    @Test
    void reserialisedJsonWithReorderedKeysIsTheSameRequest() throws Exception {
        HttpResponse<byte[]> first = post("/v1/payments", "key-1", PAYMENT);
        HttpResponse<byte[]> retry = post(
                "/v1/payments",
                "key-1",
                "{ \"description\": \"caf\\u00e9\",\n  \"currency\": \"eur\", \"amount\": 500 }");

        assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(retry.body()).isEqualTo(first.body());
        assertThat(paymentCount()).isEqualTo(1);
    }

    @Test
    void writerBasedHandlersAreBufferedAndReplayedToo() throws Exception {
        HttpResponse<byte[]> first =
                send(request("/v1/payments", "key-w", PAYMENT).header("X-Test-Behaviour", "writer"));
        HttpResponse<byte[]> retry = post("/v1/payments", "key-w", PAYMENT);

        assertThat(first.statusCode()).isEqualTo(201);
        assertThat(first.headers().firstValue("Content-Type"))
                .hasValueSatisfying(type -> assertThat(type).startsWithIgnoringCase("application/json;charset=utf-8"));
        assertThat(retry.body()).isEqualTo(first.body());
        assertThat(retry.headers().firstValue("Content-Type"))
                .isEqualTo(first.headers().firstValue("Content-Type"));
        assertThat(paymentCount()).isEqualTo(1);
    }

    @Test
    void answersBelow500AreStoredEvenWhenSentAsErrors() throws Exception {
        HttpResponse<byte[]> first =
                send(request("/v1/payments", "key-e", PAYMENT).header("X-Test-Behaviour", "senderror"));
        HttpResponse<byte[]> retry = post("/v1/payments", "key-e", PAYMENT);

        assertThat(first.statusCode()).isEqualTo(409);
        assertThat(retry.statusCode()).isEqualTo(409);
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(paymentCount())
                .as("a stored 4xx commits the handler's effects too")
                .isEqualTo(1);
    }

    // --- refusals ---------------------------------------------------------------------------------

    @Test
    void changedBodyUnderTheSameKeyAnswers422() throws Exception {
        post("/v1/payments", "key-1", PAYMENT);
        HttpResponse<byte[]> reused = post("/v1/payments", "key-1", PAYMENT.replace("500", "501"));

        assertProblem(reused, 422, "idempotency-key-reused", false);
        assertThat(paymentCount()).isEqualTo(1);
    }

    @Test
    void sameKeyOnAnotherResourceOfOneTemplateAnswers422() throws Exception {
        assertThat(post("/v1/payments/pay_A/capture", "key-c", "{}").statusCode())
                .isEqualTo(201);

        assertProblem(post("/v1/payments/pay_B/capture", "key-c", "{}"), 422, "idempotency-key-reused", false);
    }

    @Test
    void missingKeyOnARouteThatRequiresOneAnswers400() throws Exception {
        HttpResponse<byte[]> response = send(request("/v1/payments", null, PAYMENT));

        assertProblem(response, 400, "idempotency-key-missing", false);
        assertThat(text(response)).contains("POST /v1/payments requires an Idempotency-Key header");
        assertProblem(send(request("/v1/payments/pay_1/capture", null, "{}")), 400, "idempotency-key-missing", false);
        assertThat(paymentCount()).isZero();
    }

    @Test
    void invalidKeysAnswer400WithTheReason() throws Exception {
        HttpResponse<byte[]> badEscape = post("/v1/payments", "\"a\\nb\"", PAYMENT);
        HttpResponse<byte[]> tooLong = post("/v1/payments", "x".repeat(256), PAYMENT);
        HttpResponse<byte[]> twoKeys =
                send(request("/v1/payments", "one", PAYMENT).header("Idempotency-Key", "two"));

        assertProblem(badEscape, 400, "idempotency-key-invalid", false);
        assertThat(text(badEscape)).contains("escape other than");
        assertProblem(tooLong, 400, "idempotency-key-invalid", false);
        assertThat(text(tooLong)).contains("longer than 255");
        assertProblem(twoKeys, 400, "idempotency-key-invalid", false);
        assertThat(paymentCount()).isZero();
    }

    @Test
    void bodyOverTheLimitAnswers413WhetherDeclaredOrStreamed() throws Exception {
        String big = "{\"pad\":\"" + "x".repeat(MAX_BODY) + "\"}";
        HttpResponse<byte[]> declared = post("/v1/payments", "key-big", big);
        HttpResponse<byte[]> chunked = send(request("/v1/payments", "key-big", null)
                .POST(HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(big.getBytes(UTF_8)))));

        assertProblem(declared, 413, "request-too-large", false);
        assertProblem(chunked, 413, "request-too-large", false);
        assertThat(post("/v1/payments", "key-big", PAYMENT).statusCode())
                .as("the key was never claimed")
                .isEqualTo(201);
    }

    @Test
    void requestsOutsideTheFiltersScopePassUntouched() throws Exception {
        HttpResponse<byte[]> unauthenticated = send(HttpRequest.newBuilder(server.uri("/v1/payments"))
                .header("Idempotency-Key", "k")
                .POST(HttpRequest.BodyPublishers.ofString(PAYMENT)));
        HttpResponse<byte[]> unlistedPostWithoutKey = send(request("/v1/other", null, PAYMENT));

        assertThat(text(unauthenticated)).isEqualTo("untouched");
        assertThat(text(unlistedPostWithoutKey)).isEqualTo("untouched");
    }

    @Test
    void unlistedPostWithAKeyIsHonouredUnderItsPath() throws Exception {
        HttpResponse<byte[]> first = post("/v1/other", "key-o", PAYMENT);
        HttpResponse<byte[]> retry = post("/v1/other", "key-o", PAYMENT);
        HttpResponse<byte[]> otherPath = post("/v1/another", "key-o", PAYMENT);

        assertThat(first.statusCode()).isEqualTo(201);
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(otherPath.headers().firstValue("Idempotent-Replayed"))
                .as("another path is another scope")
                .isEmpty();
        assertThat(paymentCount()).isEqualTo(2);
    }

    @Test
    void sameKeyFromAnotherAccountIsAnotherScope() throws Exception {
        post("/v1/payments", "key-1", PAYMENT);
        HttpResponse<byte[]> otherAccount =
                send(request("/v1/payments", "key-1", PAYMENT).setHeader("X-Account", "acct_2"));

        assertThat(otherAccount.statusCode()).isEqualTo(201);
        assertThat(otherAccount.headers().firstValue("Idempotent-Replayed")).isEmpty();
        assertThat(paymentCount()).isEqualTo(2);
    }

    // --- in flight, failures, leases ---------------------------------------------------------------

    @Test
    void sameRequestWhileTheFirstRunsAnswers409AndNothingLeavesBeforeCommit() throws Exception {
        CompletableFuture<HttpResponse<byte[]>> slow =
                sendAsync(request("/v1/payments", "key-1", PAYMENT).header("X-Test-Behaviour", "block"));
        assertThat(entered.await(10, TimeUnit.SECONDS)).as("handler reached").isTrue();

        HttpResponse<byte[]> concurrent = post("/v1/payments", "key-1", PAYMENT);

        assertProblem(concurrent, 409, "idempotency-key-in-use", true);
        assertThat(concurrent.headers().firstValue("Retry-After")).hasValue("1");
        assertThat(slow)
                .as("flushBuffer must not commit the response before the transaction")
                .isNotDone();
        proceed.countDown();
        assertThat(slow.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(201);
        assertThat(post("/v1/payments", "key-1", PAYMENT).body())
                .isEqualTo(slow.get().body());
        assertThat(paymentCount()).isEqualTo(1);
    }

    @Test
    void a500RollsTheEffectBackAndReleasesTheKeySoTheRetryRunsOnce() throws Exception {
        HttpResponse<byte[]> failed =
                send(request("/v1/payments", "key-1", PAYMENT).header("X-Test-Behaviour", "fail500"));

        assertThat(failed.statusCode()).isEqualTo(500);
        assertThat(text(failed)).isEqualTo("bank said no");
        assertThat(paymentCount()).isZero();

        HttpResponse<byte[]> retry = post("/v1/payments", "key-1", PAYMENT);
        assertThat(retry.statusCode()).isEqualTo(201);
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).isEmpty();
        assertThat(paymentCount()).isEqualTo(1);
    }

    @Test
    void anExceptionRollsBackAnswersAProblemAndReleasesTheKey() throws Exception {
        HttpResponse<byte[]> crashed =
                send(request("/v1/payments", "key-1", PAYMENT).header("X-Test-Behaviour", "throw"));

        assertProblem(crashed, 500, "internal-error", true);
        assertThat(text(crashed)).doesNotContain("handler crashed");
        assertThat(paymentCount()).isZero();

        assertThat(post("/v1/payments", "key-1", PAYMENT).statusCode()).isEqualTo(201);
        assertThat(post("/v1/payments", "key-1", PAYMENT).headers().firstValue("Idempotent-Replayed"))
                .hasValue("true");
        assertThat(paymentCount()).isEqualTo(1);
    }

    @Test
    void holderWhoseLeaseWasTakenOverRollsBackSoTheEffectAndAnswerStayTogether() throws Exception {
        CompletableFuture<HttpResponse<byte[]>> slow =
                sendAsync(request("/v1/payments", "key-1", PAYMENT).header("X-Test-Behaviour", "block"));
        assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
        clock.advance(LEASE.plusSeconds(1));

        HttpResponse<byte[]> successor = post("/v1/payments", "key-1", PAYMENT);
        if (mode() == ClaimMode.POSTGRES_ADVISORY_LOCKS) {
            // the lease is the holder's transaction idle timeout, in real time (PostgresAdvisoryClaimsTest
            // shows it running out): on the caller's clock alone, the holder keeps its key and commits
            assertProblem(successor, 409, "idempotency-key-in-use", true);
            proceed.countDown();
            HttpResponse<byte[]> holder = slow.get(10, TimeUnit.SECONDS);
            assertThat(holder.statusCode()).isEqualTo(201);
            assertThat(paymentCount()).isEqualTo(1);
            assertThat(post("/v1/payments", "key-1", PAYMENT).body()).isEqualTo(holder.body());
            return;
        }
        proceed.countDown();
        HttpResponse<byte[]> lost = slow.get(10, TimeUnit.SECONDS);

        assertThat(successor.statusCode()).isEqualTo(201);
        assertProblem(lost, 409, "idempotency-key-in-use", true);
        assertThat(paymentCount()).as("only the successor's effect committed").isEqualTo(1);
        assertThat(post("/v1/payments", "key-1", PAYMENT).body()).isEqualTo(successor.body());
    }

    // --- concurrency -------------------------------------------------------------------------------

    @Test
    void twoHundredRequestsWithOneKeyFromThirtyTwoThreadsRunTheOperationOnce() throws Exception {
        int requests = 200;
        int threads = 32;
        CountDownLatch startGate = new CountDownLatch(1);
        AtomicInteger remaining = new AtomicInteger(requests);
        ConcurrentLinkedQueue<HttpResponse<byte[]>> responses = new ConcurrentLinkedQueue<>();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                workers.add(pool.submit(() -> {
                    if (!startGate.await(10, TimeUnit.SECONDS)) {
                        throw new IllegalStateException("start gate never opened");
                    }
                    while (remaining.getAndDecrement() > 0) {
                        responses.add(post("/v1/payments", "contended", PAYMENT));
                    }
                    return null;
                }));
            }
            startGate.countDown();
            for (Future<?> worker : workers) {
                worker.get(60, TimeUnit.SECONDS); // a worker's exception fails the test here
            }
        } finally {
            pool.shutdownNow();
            assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        }

        assertThat(responses).hasSize(requests);
        assertThat(responses).allSatisfy(r -> assertThat(r.statusCode()).isIn(201, 409));
        Set<String> successBodies = new HashSet<>();
        responses.stream().filter(r -> r.statusCode() == 201).forEach(r -> successBodies.add(text(r)));
        assertThat(successBodies).hasSize(1);
        assertThat(paymentCount()).isEqualTo(1);
        assertThat(text(post("/v1/payments", "contended", PAYMENT)))
                .isEqualTo(successBodies.iterator().next());
    }

    // --- helpers ----------------------------------------------------------------------------------

    private HttpRequest.Builder request(String path, String key, String body) {
        HttpRequest.Builder builder = HttpRequest.newBuilder(server.uri(path))
                .timeout(Duration.ofSeconds(30))
                .header("X-Account", "acct_1")
                .header("Content-Type", "application/json");
        if (key != null) {
            builder.header("Idempotency-Key", key);
        }
        if (body != null) {
            builder.POST(HttpRequest.BodyPublishers.ofString(body, UTF_8));
        }
        return builder;
    }

    private HttpResponse<byte[]> post(String path, String key, String body) throws Exception {
        return send(request(path, key, body));
    }

    private HttpResponse<byte[]> send(HttpRequest.Builder request) throws Exception {
        HttpRequest built = request.build();
        try {
            return http.send(built, HttpResponse.BodyHandlers.ofByteArray());
        } catch (java.io.IOException e) {
            // the JDK client reused a kept-alive connection that Jetty had just closed (after an
            // answer that left a request body unread): nothing reached the server, send it again
            if (!String.valueOf(e.getMessage()).contains("received no bytes")) {
                throw e;
            }
            return http.send(built, HttpResponse.BodyHandlers.ofByteArray());
        }
    }

    private CompletableFuture<HttpResponse<byte[]>> sendAsync(HttpRequest.Builder request) {
        return http.sendAsync(request.build(), HttpResponse.BodyHandlers.ofByteArray());
    }

    private static String text(HttpResponse<byte[]> response) {
        return new String(response.body(), UTF_8);
    }

    private static void assertProblem(HttpResponse<byte[]> response, int status, String slug, boolean retryable) {
        assertThat(response.statusCode()).isEqualTo(status);
        assertThat(response.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(text(response))
                .startsWith("{\"type\":\"/problems/" + slug + "\",\"title\":\"")
                .contains(",\"status\":" + status + ",\"detail\":\"")
                .endsWith(",\"retryable\":" + retryable + "}");
    }

    private int paymentCount() throws SQLException {
        try (Connection c = dataSource.getConnection();
                Statement s = c.createStatement();
                ResultSet r = s.executeQuery("SELECT COUNT(*) FROM payments")) {
            r.next();
            return r.getInt(1);
        }
    }

    private void execute(String sql) throws SQLException {
        try (Connection c = dataSource.getConnection();
                Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }
}
