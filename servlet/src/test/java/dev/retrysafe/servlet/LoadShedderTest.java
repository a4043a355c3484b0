package dev.retrysafe.servlet;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.retrysafe.idempotency.ClaimMode;
import dev.retrysafe.idempotency.JdbcIdempotencyStore;
import dev.retrysafe.testkit.ThrowawayDatabase;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Load shedding: lowest priority first as the load rises, critical never, exempt requests never;
 * a shed request reaches nothing behind the shedder; a replay is never shed, and a keyed request
 * shed after its lookup leaves its key free, so the client's retry runs it once.
 */
class LoadShedderTest {

    private final AtomicInteger load = new AtomicInteger();
    private final AtomicInteger reached = new AtomicInteger();
    private final HttpClient http =
            HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private TestServer server;
    private ThrowawayDatabase database;

    private final HttpServlet counting = new HttpServlet() {
        @Override
        protected void service(HttpServletRequest request, HttpServletResponse response) throws IOException {
            reached.incrementAndGet();
            response.setStatus(200);
            response.getWriter().write("served");
        }
    };

    @AfterEach
    void stop() throws Exception {
        http.close();
        if (server != null) {
            server.close();
        }
        if (database != null) {
            database.close();
        }
    }

    private LoadShedder.Builder shedder() {
        return LoadShedder.builder()
                .pressure(load::get)
                .shedAt(2, 5)
                .retryAfter(Duration.ofSeconds(3))
                .priority(request -> switch (String.valueOf(request.getHeader("X-Priority"))) {
                    case "low" -> LoadShedder.Priority.LOW;
                    case "critical" -> LoadShedder.Priority.CRITICAL;
                    default -> LoadShedder.Priority.NORMAL;
                })
                .exempt(request -> request.getRequestURI().equals("/v1/rate_limit"));
    }

    @Test
    void lowIsShedFirstThenNormalAndCriticalNever() throws Exception {
        LoadShedder shedder = shedder().build();
        server = new TestServer(counting, shedder);

        load.set(1);
        assertThat(statuses()).as("below both bounds").containsExactly(200, 200, 200);
        load.set(2);
        assertThat(statuses()).as("low shed first").containsExactly(503, 200, 200);
        load.set(5);
        assertThat(statuses()).as("then normal").containsExactly(503, 503, 200);
        load.set(1000);
        assertThat(statuses()).as("critical never").containsExactly(503, 503, 200);
        assertThat(send("/v1/rate_limit", "low", null).statusCode())
                .as("exempt")
                .isEqualTo(200);

        assertThat(reached).as("shed requests reached nothing").hasValue(3 + 2 + 1 + 1 + 1);
        assertThat(shedder.shedCount(LoadShedder.Priority.LOW)).isEqualTo(3);
        assertThat(shedder.shedCount(LoadShedder.Priority.NORMAL)).isEqualTo(2);
        assertThat(shedder.shedCount(LoadShedder.Priority.CRITICAL)).isZero();
    }

    @Test
    void aShedRequestIsA503ProblemWithRetryAfter() throws Exception {
        server = new TestServer(counting, shedder().build());
        load.set(2);

        HttpResponse<String> shed = send("/v1/reports", "low", null);

        assertThat(shed.statusCode()).isEqualTo(503);
        assertThat(shed.headers().firstValue("Retry-After")).hasValue("3");
        assertThat(shed.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(shed.body())
                .startsWith("{\"type\":\"/problems/overloaded\",\"title\":\"Server overloaded\",\"status\":503,")
                .contains("\"retryable\":true", "\"priority\":\"low\"", "\"retry_after\":3");
    }

    /** Both orders of the handler: claim rows (claim, then the transaction) and in-process claims (the other way). */
    @ParameterizedTest
    @EnumSource(
            value = ClaimMode.class,
            names = {"ROWS", "IN_PROCESS"})
    void aReplayIsNeverShedAndAShedKeyedRequestLeavesItsKeyFree(ClaimMode mode) throws Exception {
        database = ThrowawayDatabase.h2("shedding");
        try (Connection c = database.dataSource().getConnection();
                Statement s = c.createStatement()) {
            s.execute(JdbcIdempotencyStore.schemaSql());
            s.execute("CREATE TABLE payments (id VARCHAR(64) PRIMARY KEY, account VARCHAR(64),"
                    + " idem_key VARCHAR(255), body TEXT)");
        }
        LoadShedder shedder = shedder().keyedRequestsJudgedAfterLookup(true).build();
        IdempotencyFilter idempotency = IdempotencyFilter.builder()
                .dataSource(database.dataSource())
                .store(JdbcIdempotencyStore.builder(database.dataSource())
                        .claims(mode)
                        .build())
                .scope(request -> request.getHeader("X-Account"))
                .route("POST", "/v1/payments", true)
                .shedding(shedder)
                .build();
        CountDownLatch open = new CountDownLatch(0);
        server = new TestServer(new PaymentsServlet(new CountDownLatch(1), open), shedder, idempotency);

        load.set(0);
        HttpResponse<String> first = send("/v1/payments", "low", "key-a");
        assertThat(first.statusCode()).isEqualTo(201);

        load.set(1000);
        HttpResponse<String> replay = send("/v1/payments", "low", "key-a");
        HttpResponse<String> fresh = send("/v1/payments", "low", "key-b");
        assertThat(replay.statusCode()).as("a replay is never shed").isEqualTo(201);
        assertThat(replay.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(replay.body()).isEqualTo(first.body());
        assertThat(fresh.statusCode()).isEqualTo(503);
        assertThat(fresh.body()).contains("/problems/overloaded");
        assertThat(payments()).as("the shed request did nothing").isEqualTo(1);

        load.set(0);
        HttpResponse<String> retried = send("/v1/payments", "low", "key-b");
        assertThat(retried.statusCode()).as("its key was left free").isEqualTo(201);
        assertThat(retried.headers().firstValue("Idempotent-Replayed")).isEmpty();
        assertThat(payments()).isEqualTo(2);
    }

    @Test
    void boundsAndRetryAfterAreChecked() {
        assertThatThrownBy(() -> LoadShedder.builder().shedAt(0, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> LoadShedder.builder().shedAt(5, 4)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> LoadShedder.builder().retryAfter(Duration.ofMillis(1500)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> LoadShedder.builder().build()).isInstanceOf(NullPointerException.class);
    }

    private java.util.List<Integer> statuses() throws Exception {
        return java.util.List.of(
                send("/v1/reports", "low", null).statusCode(),
                send("/v1/events", "normal", null).statusCode(),
                send("/v1/payments", "critical", null).statusCode());
    }

    private HttpResponse<String> send(String path, String priority, String key) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(server.uri(path))
                .header("X-Priority", priority)
                .header("X-Account", "acme")
                .timeout(Duration.ofSeconds(10));
        if (key != null) {
            request.header("Idempotency-Key", key)
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"amount\":100}", UTF_8));
        } else {
            request.GET();
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private long payments() throws Exception {
        try (Connection c = database.dataSource().getConnection();
                Statement s = c.createStatement();
                ResultSet r = s.executeQuery("SELECT COUNT(*) FROM payments")) {
            r.next();
            return r.getLong(1);
        }
    }
}
