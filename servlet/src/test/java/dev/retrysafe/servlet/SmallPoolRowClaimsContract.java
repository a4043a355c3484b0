package dev.retrysafe.servlet;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.retrysafe.idempotency.ClaimMode;
import dev.retrysafe.idempotency.JdbcIdempotencyStore;
import dev.retrysafe.testkit.FakeClock;
import dev.retrysafe.testkit.ThrowawayDatabase;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Many more keyed requests in flight than the pool has connections, with claims as committed rows
 * ({@link ClaimMode#ROWS}, whose claim and release each take a connection of their own): every
 * request holds one pooled connection at a time, so none waits for a connection that no other
 * gives back. Regression: the filter began the request's transaction before the claim, so each
 * request held one connection while its claim waited for a second; with a pool of two, requests
 * failed with {@code 503} once the pool's connection timeout ran out.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class SmallPoolRowClaimsContract {

    private static final int POOL_SIZE = 2;
    private static final int IN_FLIGHT = 32;
    /** Far longer than 32 requests need through two connections; a starved pool fails within it. */
    private static final Duration POOL_TIMEOUT = Duration.ofSeconds(10);

    private static final Duration DEADLINE = Duration.ofSeconds(60);
    private static final String PAYMENT = "{\"amount\":500,\"currency\":\"eur\"}";

    private ThrowawayDatabase database;
    private HikariDataSource pool;
    private CheckoutCountingDataSource dataSource;
    private TestServer server;
    private HttpClient http;
    private ExecutorService clients;

    /** A new, empty database of this test class's own. */
    protected abstract ThrowawayDatabase openDatabase();

    @BeforeAll
    void createSchemaAndPool() throws Exception {
        database = openDatabase();
        try (Connection c = database.dataSource().getConnection();
                Statement s = c.createStatement()) {
            s.execute(JdbcIdempotencyStore.schemaSql());
            s.execute("CREATE TABLE payments (id VARCHAR(64) PRIMARY KEY, account VARCHAR(64),"
                    + " idem_key VARCHAR(255), body TEXT)");
        }
        HikariConfig config = new HikariConfig();
        config.setDataSource(database.dataSource());
        config.setMaximumPoolSize(POOL_SIZE);
        config.setMinimumIdle(POOL_SIZE);
        config.setConnectionTimeout(POOL_TIMEOUT.toMillis());
        config.setPoolName("small-pool-" + getClass().getSimpleName());
        pool = new HikariDataSource(config);
        dataSource = new CheckoutCountingDataSource(pool);
    }

    @AfterAll
    void closePoolAndDatabase() {
        if (pool != null) {
            pool.close();
        }
        if (database != null) {
            assertThat(database.dataSource().openConnections())
                    .as("physical connections left open")
                    .isZero();
            database.close();
        }
    }

    @BeforeEach
    void startServer() throws Exception {
        execute("DELETE FROM idempotency_keys");
        execute("DELETE FROM payments");
        dataSource.reset();
        JdbcIdempotencyStore store =
                JdbcIdempotencyStore.builder(dataSource).claims(ClaimMode.ROWS).build();
        assertThat(store.claimsOnOwnConnection()).isTrue();
        IdempotencyFilter filter = IdempotencyFilter.builder()
                .dataSource(dataSource)
                .store(store)
                .clock(new FakeClock())
                .scope(request -> request.getHeader("X-Account"))
                .route("POST", "/v1/payments", true)
                .lease(Duration.ofSeconds(30))
                .build();
        CountDownLatch never = new CountDownLatch(0);
        server = new TestServer(filter, new PaymentsServlet(never, never));
        clients = Executors.newVirtualThreadPerTaskExecutor();
        http = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .executor(clients)
                .connectTimeout(Duration.ofSeconds(5))
                .build();
    }

    @AfterEach
    void stopServer() throws Exception {
        http.close();
        server.close();
        clients.shutdownNow();
        assertThat(clients.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(dataSource.checkedOut())
                        .as("connections not given back")
                        .isZero());
    }

    @Test
    void thirtyTwoKeyedRequestsOnAPoolOfTwoEachHoldOneConnectionAndAllSucceed() throws Exception {
        // when: 32 first uses of 32 keys at once
        Map<Integer, Long> statuses = statusesOf(sendAtOnce("first", null));

        // then: every one ran, none waited for a second connection, none timed out in the pool
        assertThat(statuses).as("statuses of %d keyed requests", IN_FLIGHT).containsOnlyKeys(201);
        assertOneConnectionPerRequest();
        assertThat(paymentCount()).isEqualTo(IN_FLIGHT);

        // and: their retries, at once, are replays that took no transaction at all
        dataSource.reset();
        List<HttpResponse<String>> retries = sendAtOnce("first", null);
        assertThat(retries)
                .allSatisfy(r -> assertThat(r.headers().firstValue("Idempotent-Replayed"))
                        .hasValue("true"));
        assertOneConnectionPerRequest();
        assertThat(paymentCount()).isEqualTo(IN_FLIGHT);
    }

    /**
     * A failed operation's claim is released on a connection of its own: only after the request's
     * transaction gave its connection back, or every failing request would wait for a second one.
     */
    @Test
    void thirtyTwoFailingKeyedRequestsReleaseTheirKeysWithoutHoldingTwoConnections() throws Exception {
        // when: 32 keyed requests whose operation answers 500, at once
        Map<Integer, Long> failed = statusesOf(sendAtOnce("failing", "fail500"));

        // then: each rolled back and let its key go, holding one connection at a time
        assertThat(failed)
                .as("statuses of %d failing keyed requests", IN_FLIGHT)
                .containsOnlyKeys(500);
        assertOneConnectionPerRequest();
        assertThat(paymentCount()).isZero();
        assertThat(count("SELECT COUNT(*) FROM idempotency_keys"))
                .as("claims left behind")
                .isZero();

        // and: each key's retry runs again (it was released, not left to its lease)
        assertThat(statusesOf(sendAtOnce("failing", null))).containsOnlyKeys(201);
        assertThat(paymentCount()).isEqualTo(IN_FLIGHT);
    }

    private void assertOneConnectionPerRequest() {
        assertThat(dataSource.failures())
                .as("failures to get a pooled connection (SQLTransientConnectionException: the pool ran dry)")
                .isEmpty();
        assertThat(dataSource.maxByOneThread())
                .as("most connections one request held at once")
                .isEqualTo(1);
        assertThat(dataSource.maxCheckedOut()).isLessThanOrEqualTo(POOL_SIZE);
    }

    /** Sends {@value #IN_FLIGHT} keyed payments, keys {@code prefix-0} and on, released together. */
    private List<HttpResponse<String>> sendAtOnce(String prefix, String behaviour) throws Exception {
        CountDownLatch start = new CountDownLatch(1);
        List<CompletableFuture<HttpResponse<String>>> sent = new ArrayList<>();
        for (int i = 0; i < IN_FLIGHT; i++) {
            HttpRequest.Builder request = HttpRequest.newBuilder(server.uri("/v1/payments"))
                    .timeout(DEADLINE)
                    .header("Content-Type", "application/json")
                    .header("X-Account", "acct_small_pool")
                    .header("Idempotency-Key", prefix + "-" + i)
                    .POST(HttpRequest.BodyPublishers.ofString(PAYMENT, UTF_8));
            if (behaviour != null) {
                request.header("X-Test-Behaviour", behaviour);
            }
            HttpRequest built = request.build();
            sent.add(CompletableFuture.supplyAsync(
                    () -> {
                        try {
                            if (!start.await(DEADLINE.toSeconds(), TimeUnit.SECONDS)) {
                                throw new IllegalStateException("the start gate never opened");
                            }
                            return http.send(built, HttpResponse.BodyHandlers.ofString(UTF_8));
                        } catch (Exception e) {
                            throw new IllegalStateException(e);
                        }
                    },
                    clients));
        }
        start.countDown();
        CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new))
                .get(DEADLINE.toSeconds(), TimeUnit.SECONDS); // a client's failure fails the test here
        return sent.stream().map(CompletableFuture::join).toList();
    }

    private static Map<Integer, Long> statusesOf(List<HttpResponse<String>> responses) {
        return responses.stream()
                .map(HttpResponse::statusCode)
                .collect(Collectors.groupingBy(Function.identity(), Collectors.counting()));
    }

    private int paymentCount() throws SQLException {
        return count("SELECT COUNT(*) FROM payments");
    }

    private int count(String sql) throws SQLException {
        try (Connection c = database.dataSource().getConnection();
                Statement s = c.createStatement();
                ResultSet r = s.executeQuery(sql)) {
            r.next();
            return r.getInt(1);
        }
    }

    private void execute(String sql) throws SQLException {
        try (Connection c = database.dataSource().getConnection();
                Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }
}
