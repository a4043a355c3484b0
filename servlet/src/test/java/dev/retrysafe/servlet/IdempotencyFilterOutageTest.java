package dev.retrysafe.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.retrysafe.idempotency.JdbcIdempotencyStore;
import dev.retrysafe.testkit.CountingDataSource;
import dev.retrysafe.testkit.ThrowawayDatabase;
import java.io.PrintWriter;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.SQLTransientConnectionException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.logging.Logger;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * Regression test for a finding of the fault-injection suite: while PostgreSQL restarted, the
 * idempotency filter answered {@code 500 internal-error} when it could not claim a key or open
 * the request's transaction. A database that cannot be reached is an outage, not a bug: the
 * answer is {@code 503 service-unavailable} with {@code Retry-After}, and the key stays free so
 * the retry runs once the database is back.
 */
class IdempotencyFilterOutageTest {

    private static final String PAYMENT = "{\"amount\":500,\"currency\":\"eur\"}";

    /** A data source that refuses connections, as a pool does while its database is down, until told otherwise. */
    private static final class SwitchableDataSource implements DataSource {
        private final CountingDataSource delegate;
        private volatile boolean down;
        /** The next connections, one entry each: {@code true} refuses it. Once empty, {@link #down} decides. */
        private final java.util.Queue<Boolean> script = new java.util.concurrent.ConcurrentLinkedQueue<>();

        SwitchableDataSource(CountingDataSource delegate) {
            this.delegate = delegate;
        }

        @Override
        public Connection getConnection() throws SQLException {
            Boolean scripted = script.poll();
            if (scripted != null ? scripted : down) {
                throw new SQLTransientConnectionException("Connection is not available, request timed out");
            }
            return delegate.getConnection();
        }

        @Override
        public Connection getConnection(String user, String password) throws SQLException {
            return getConnection();
        }

        @Override
        public PrintWriter getLogWriter() {
            return delegate.getLogWriter();
        }

        @Override
        public void setLogWriter(PrintWriter out) {
            delegate.setLogWriter(out);
        }

        @Override
        public void setLoginTimeout(int seconds) {
            delegate.setLoginTimeout(seconds);
        }

        @Override
        public int getLoginTimeout() {
            return delegate.getLoginTimeout();
        }

        @Override
        public Logger getParentLogger() throws SQLFeatureNotSupportedException {
            return delegate.getParentLogger();
        }

        @Override
        public <T> T unwrap(Class<T> iface) throws SQLException {
            return delegate.unwrap(iface);
        }

        @Override
        public boolean isWrapperFor(Class<?> iface) {
            return delegate.isWrapperFor(iface);
        }
    }

    private static void createTables(DataSource dataSource) throws SQLException {
        try (Connection c = dataSource.getConnection();
                Statement s = c.createStatement()) {
            s.execute(JdbcIdempotencyStore.schemaSql());
            s.execute("CREATE TABLE payments (id VARCHAR(64) PRIMARY KEY, account VARCHAR(64),"
                    + " idem_key VARCHAR(255), body TEXT)");
        }
    }

    /** The filter of these tests over {@code dataSource}: keyed POST /v1/payments, scoped by X-Account. */
    private static IdempotencyFilter.Builder filter(DataSource dataSource) {
        return IdempotencyFilter.builder()
                .dataSource(dataSource)
                .store(JdbcIdempotencyStore.create(dataSource))
                .scope(request -> request.getHeader("X-Account"))
                .route("POST", "/v1/payments", true);
    }

    /**
     * With claim rows the key is claimed (on a connection of its own) before the request's
     * transaction begins; a transaction that then cannot begin ran nothing, so the claim is
     * released at once instead of answering {@code 409} to every retry until its lease ends.
     */
    @Test
    void aClaimWhoseTransactionCannotBeginIsReleasedAndAnswered503() throws Exception {
        try (ThrowawayDatabase database = ThrowawayDatabase.h2("outage-begin")) {
            SwitchableDataSource dataSource = new SwitchableDataSource(database.dataSource());
            createTables(dataSource);
            // a claim left behind would answer 409 to the retry
            IdempotencyFilter filter =
                    filter(dataSource).lease(Duration.ofHours(1)).build();
            CountDownLatch never = new CountDownLatch(0);
            try (TestServer server = new TestServer(filter, new PaymentsServlet(never, never));
                    HttpClient http = HttpClient.newBuilder()
                            .connectTimeout(Duration.ofSeconds(5))
                            .build()) {
                HttpRequest pay = HttpRequest.newBuilder(server.uri("/v1/payments"))
                        .timeout(Duration.ofSeconds(10))
                        .header("X-Account", "acct_1")
                        .header("Idempotency-Key", "outage-begin-1")
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(PAYMENT))
                        .build();

                // given: the claim gets its connection, the transaction does not, the release does
                dataSource.script.addAll(java.util.List.of(false, true, false));

                // when / then: an outage answer
                HttpResponse<String> refused =
                        http.send(pay, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
                assertThat(refused.statusCode()).as(refused.body()).isEqualTo(503);
                assertThat(refused.headers().firstValue("Retry-After")).hasValue("1");
                assertThat(dataSource.script).as("connections asked for").isEmpty();

                // when: the retry comes, the key is free and it pays once
                HttpResponse<String> paid = http.send(pay, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
                assertThat(paid.statusCode()).as(paid.body()).isEqualTo(201);
                assertThat(paid.headers().firstValue("Idempotent-Replayed")).isEmpty();
            }
            assertThat(database.dataSource().openConnections()).isZero();
        }
    }

    @Test
    void aDatabaseThatCannotBeReachedAnswers503WithRetryAfterAndTheRetryRunsOnceItIsBack() throws Exception {
        try (ThrowawayDatabase database = ThrowawayDatabase.h2("outage")) {
            SwitchableDataSource dataSource = new SwitchableDataSource(database.dataSource());
            createTables(dataSource);
            IdempotencyFilter filter = filter(dataSource).build();
            CountDownLatch never = new CountDownLatch(0);
            try (TestServer server = new TestServer(filter, new PaymentsServlet(never, never));
                    HttpClient http = HttpClient.newBuilder()
                            .connectTimeout(Duration.ofSeconds(5))
                            .build()) {
                HttpRequest pay = HttpRequest.newBuilder(server.uri("/v1/payments"))
                        .timeout(Duration.ofSeconds(10))
                        .header("X-Account", "acct_1")
                        .header("Idempotency-Key", "outage-1")
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(PAYMENT))
                        .build();

                // given: the database cannot be reached
                dataSource.down = true;

                // when / then: the answer says so, and when to come back
                HttpResponse<String> refused =
                        http.send(pay, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
                assertThat(refused.statusCode()).as(refused.body()).isEqualTo(503);
                assertThat(refused.headers().firstValue("Retry-After")).hasValue("1");
                assertThat(refused.headers().firstValue("Content-Type")).hasValue("application/problem+json");
                assertThat(refused.body())
                        .startsWith("{\"type\":\"/problems/service-unavailable\"")
                        .endsWith("\"retryable\":true}");

                // when: it is back, the same key runs (it was never claimed) and pays once
                dataSource.down = false;
                HttpResponse<String> paid = http.send(pay, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
                assertThat(paid.statusCode()).as(paid.body()).isEqualTo(201);
                assertThat(paid.headers().firstValue("Idempotent-Replayed")).isEmpty();
            }
        }
    }
}
