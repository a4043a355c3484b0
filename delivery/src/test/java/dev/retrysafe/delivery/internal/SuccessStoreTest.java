package dev.retrysafe.delivery.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.retrysafe.delivery.AttemptResult;
import dev.retrysafe.delivery.AttemptResult.Outcome;
import dev.retrysafe.delivery.DeliverySchema;
import dev.retrysafe.delivery.DeliveryStoreException;
import dev.retrysafe.leasedwork.internal.Jdbc;
import dev.retrysafe.testkit.ThrowawayDatabase;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Successes are stored in batches: while writers commit, the successes that finish wait and go
 * into one transaction; a lost lease is reported per success; a batch that fails is stored one
 * by one. On H2 (JDBC batches) and on PostgreSQL (one statement per step for the whole batch);
 * commits are held on a gate, so batching is reached without timing.
 */
@ParameterizedClass
@ValueSource(strings = {"h2", "postgres"})
class SuccessStoreTest {

    @Parameter
    String backend;

    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final Instant STARTED = Instant.parse("2026-03-01T10:00:00Z");

    private ThrowawayDatabase database;
    private final AtomicInteger commits = new AtomicInteger();
    private final AtomicInteger commitsWaiting = new AtomicInteger();
    private volatile CountDownLatch commitGate = new CountDownLatch(0);
    private final AtomicBoolean failNextBatch = new AtomicBoolean();
    private final ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();
    private SuccessStore store;

    @BeforeEach
    void createSchema() throws SQLException {
        database = backend.equals("h2") ? ThrowawayDatabase.h2("success_store") : ThrowawayDatabase.postgres();
        try (Connection c = database.dataSource().getConnection();
                Statement s = c.createStatement()) {
            s.execute(DeliverySchema.schemaSql());
            s.execute("INSERT INTO webhook_endpoints (id, account_id, url, description, enabled, secret, created_at, "
                    + "updated_at) VALUES ('we_1', 'acct_1', 'https://a.example.com/', '', TRUE, 'whsec_x', 1, 1)");
        }
        store = new SuccessStore(new Jdbc(gated(database.dataSource()), DeliveryStoreException::new), "test");
    }

    @AfterEach
    void close() throws Exception {
        commitGate.countDown();
        store.close();
        threads.shutdown();
        assertThat(threads.awaitTermination(10, TimeUnit.SECONDS))
                .as("test threads ended")
                .isTrue();
        assertThat(database.dataSource().openConnections())
                .as("connections left open")
                .isZero();
        database.close();
    }

    @Test
    void successesThatFinishWhileWritersCommitShareOneTransaction() throws Exception {
        List<Claimed> claims = claims(22);
        commitGate = new CountDownLatch(1);
        List<Future<Boolean>> stored = new ArrayList<>();
        occupyBothWriters(stored, claims);
        for (Claimed claim : claims.subList(2, claims.size())) {
            stored.add(threads.submit(() -> store.store(success(claim))));
        }
        await().atMost(WAIT).until(() -> store.waiting() == 20);

        commitGate.countDown();

        for (Future<Boolean> f : stored) {
            assertThat(f.get(10, TimeUnit.SECONDS)).isTrue();
        }
        assertThat(commits.get())
                .as("2 single commits, then the 20 waiting in one or two")
                .isBetween(3, 4);
        assertThat(count("SELECT COUNT(*) FROM deliveries WHERE status = 'succeeded' AND lease_token IS NULL "
                        + "AND next_attempt_at IS NULL AND attempts = 1 AND last_status_code = 204"))
                .isEqualTo(22);
        assertThat(count("SELECT COUNT(*) FROM delivery_attempts WHERE outcome = 'SUCCESS'"))
                .isEqualTo(22);
    }

    @Test
    void aSuccessEndsTheEndpointsFailingStreak() throws Exception {
        Claimed claim = claims(1).getFirst();
        try (Connection c = database.dataSource().getConnection();
                Statement s = c.createStatement()) {
            s.execute("UPDATE webhook_endpoints SET failing_since = 5");
        }

        assertThat(threads.submit(() -> store.store(success(claim))).get(10, TimeUnit.SECONDS))
                .isTrue();

        assertThat(count("SELECT COUNT(*) FROM webhook_endpoints WHERE failing_since IS NULL"))
                .isEqualTo(1);
        assertThat(commits.get()).isEqualTo(1);
    }

    @Test
    void aLostLeaseIsReportedForThatSuccessOnly() throws Exception {
        List<Claimed> claims = claims(3);
        try (Connection c = database.dataSource().getConnection();
                Statement s = c.createStatement()) {
            s.execute("UPDATE deliveries SET lease_token = 'new-holder' WHERE id = '"
                    + claims.get(1).id() + "'");
        }
        commitGate = new CountDownLatch(1);
        List<Future<Boolean>> occupying = new ArrayList<>();
        occupyBothWriters(occupying, List.of(claims.get(0), claims.get(2)));
        Future<Boolean> first = occupying.get(0);
        Future<Boolean> other = occupying.get(1);
        Future<Boolean> lost = threads.submit(() -> store.store(success(claims.get(1))));
        await().atMost(WAIT).until(() -> store.waiting() == 1);
        commitGate.countDown();

        assertThat(first.get(10, TimeUnit.SECONDS)).isTrue();
        assertThat(other.get(10, TimeUnit.SECONDS)).isTrue();
        assertThat(lost.get(10, TimeUnit.SECONDS)).isFalse();
        assertThat(count("SELECT COUNT(*) FROM deliveries WHERE status = 'delivering' AND lease_token = 'new-holder'"))
                .as("left to its new holder")
                .isEqualTo(1);
    }

    @Test
    void aLostLeaseInTheMiddleOfABatchChangesNothingForThatRow() throws Exception {
        List<Claimed> claims = claims(7);
        String lostId = claims.get(4).id();
        try (Connection c = database.dataSource().getConnection();
                Statement s = c.createStatement()) {
            s.execute("UPDATE deliveries SET lease_token = 'new-holder', lease_owner = 'other', next_attempt_at = 555, "
                    + "lease_expires_at = 555 WHERE id = '" + lostId + "'");
        }
        commitGate = new CountDownLatch(1);
        List<Future<Boolean>> stored = new ArrayList<>();
        occupyBothWriters(stored, claims);
        for (Claimed claim : claims.subList(2, claims.size())) {
            stored.add(threads.submit(() -> store.store(success(claim))));
        }
        await().atMost(WAIT).until(() -> store.waiting() == 5);

        commitGate.countDown();

        for (int i = 0; i < claims.size(); i++) {
            assertThat(stored.get(i).get(10, TimeUnit.SECONDS))
                    .as("stored as finished: %s", claims.get(i).id())
                    .isEqualTo(i != 4);
        }
        assertThat(commits.get())
                .as("2 single commits, then the 5 waiting in one or two")
                .isBetween(3, 4);
        assertThat(count("SELECT COUNT(*) FROM deliveries WHERE id = '" + lostId + "' AND status = 'delivering' "
                        + "AND lease_token = 'new-holder' AND lease_owner = 'other' AND next_attempt_at = 555 "
                        + "AND lease_expires_at = 555 AND attempts = 0 AND last_attempt_at IS NULL"))
                .as("the row of the lost lease is as its new holder left it")
                .isEqualTo(1);
        assertThat(count("SELECT COUNT(*) FROM deliveries WHERE status = 'succeeded' AND lease_token IS NULL "
                        + "AND next_attempt_at IS NULL AND attempts = 1 AND last_status_code = 204"))
                .isEqualTo(6);
        assertThat(count("SELECT COUNT(*) FROM delivery_attempts"))
                .as("every attempt made is logged once, the lost lease's too")
                .isEqualTo(7);
    }

    @Test
    void aBatchThatCannotBeStoredIsStoredOneByOne() throws Exception {
        List<Claimed> claims = claims(6);
        commitGate = new CountDownLatch(1);
        List<Future<Boolean>> stored = new ArrayList<>();
        occupyBothWriters(stored, claims);
        for (Claimed claim : claims.subList(2, claims.size())) {
            stored.add(threads.submit(() -> store.store(success(claim))));
        }
        await().atMost(WAIT).until(() -> store.waiting() == 4);
        failNextBatch.set(true);
        commitGate.countDown();

        for (Future<Boolean> f : stored) {
            assertThat(f.get(10, TimeUnit.SECONDS)).isTrue();
        }
        assertThat(failNextBatch.get()).as("a batch failed").isFalse();
        assertThat(count("SELECT COUNT(*) FROM deliveries WHERE status = 'succeeded'"))
                .isEqualTo(6);
        assertThat(count("SELECT COUNT(*) FROM delivery_attempts"))
                .as("no attempt logged twice")
                .isEqualTo(6);
    }

    // --- helpers ---------------------------------------------------------------------------

    /** Stores the first two claims one after the other, so each writer holds one in its (gated) commit. */
    private void occupyBothWriters(List<Future<Boolean>> stored, List<Claimed> claims) {
        stored.add(threads.submit(() -> store.store(success(claims.get(0)))));
        await().atMost(WAIT).until(() -> commitsWaiting.get() == 1);
        stored.add(threads.submit(() -> store.store(success(claims.get(1)))));
        await().atMost(WAIT).until(() -> commitsWaiting.get() == 2);
    }

    /** {@code n} deliveries of endpoint we_1, claimed with lease token "tok". */
    private List<Claimed> claims(int n) throws SQLException {
        List<Claimed> out = new ArrayList<>();
        try (Connection c = database.dataSource().getConnection();
                PreparedStatement s =
                        c.prepareStatement("INSERT INTO deliveries (id, endpoint_id, account_id, event_id, "
                                + "event_type, payload, status, attempts, next_attempt_at, lease_owner, lease_token, "
                                + "lease_expires_at, created_at) VALUES (?, 'we_1', 'acct_1', ?, 'payment.succeeded', ?, "
                                + "'delivering', 0, 99, 'test', 'tok', 99, 1)")) {
            for (int i = 0; i < n; i++) {
                String id = String.format("msg_%03d", i);
                s.setString(1, id);
                s.setString(2, "evt_" + i);
                s.setBytes(3, "{}".getBytes(java.nio.charset.StandardCharsets.UTF_8));
                s.executeUpdate();
                out.add(new Claimed(
                        id,
                        "we_1",
                        "acct_1",
                        "{}".getBytes(java.nio.charset.StandardCharsets.UTF_8),
                        0,
                        Instant.EPOCH,
                        "https://a.example.com/",
                        "whsec_x",
                        null,
                        null,
                        "tok",
                        null));
            }
        }
        return out;
    }

    private static SuccessStore.Success success(Claimed claimed) {
        return new SuccessStore.Success(
                claimed,
                ResourceIds.next(ResourceIds.ATTEMPT, STARTED),
                STARTED,
                new AttemptResult(Outcome.SUCCESS, 204, Duration.ofMillis(2), "", null, ""));
    }

    private long count(String sql) throws SQLException {
        try (Connection c = database.dataSource().getConnection();
                Statement s = c.createStatement();
                ResultSet r = s.executeQuery(sql)) {
            r.next();
            return r.getLong(1);
        }
    }

    /** Connections whose commits wait at the gate (counted), and whose next batch fails once when told. */
    private DataSource gated(DataSource target) {
        return (DataSource) Proxy.newProxyInstance(
                getClass().getClassLoader(), new Class<?>[] {DataSource.class}, (proxy, method, args) -> {
                    Object result = invoke(method, target, args);
                    return method.getName().equals("getConnection") ? gated((Connection) result) : result;
                });
    }

    private Connection gated(Connection target) {
        return (Connection) Proxy.newProxyInstance(
                getClass().getClassLoader(), new Class<?>[] {Connection.class}, (proxy, method, args) -> {
                    if (method.getName().equals("commit")) {
                        commitsWaiting.incrementAndGet();
                        try {
                            if (!commitGate.await(10, TimeUnit.SECONDS)) {
                                throw new AssertionError("the test never opened the commit gate");
                            }
                        } finally {
                            commitsWaiting.decrementAndGet();
                        }
                        commits.incrementAndGet();
                    }
                    Object result = invoke(method, target, args);
                    return method.getName().equals("prepareStatement") ? failing((PreparedStatement) result) : result;
                });
    }

    /**
     * A statement whose next batch of several rows fails once {@link #failNextBatch} is set: a JDBC
     * batch of several rows (H2), or a statement whose arrays hold several (PostgreSQL). A batch
     * of one row is never the one failed: the two writers may split the waiting successes
     * unevenly, and a single success that fails is reported, not stored again one by one.
     */
    private PreparedStatement failing(PreparedStatement target) {
        AtomicInteger rows = new AtomicInteger();
        return (PreparedStatement) Proxy.newProxyInstance(
                getClass().getClassLoader(), new Class<?>[] {PreparedStatement.class}, (proxy, method, args) -> {
                    switch (method.getName()) {
                        case "addBatch" -> rows.incrementAndGet();
                        case "setArray" ->
                            rows.accumulateAndGet(((Object[]) ((java.sql.Array) args[1]).getArray()).length, Math::max);
                        case "executeBatch", "executeUpdate", "executeQuery" -> {
                            if (rows.getAndSet(0) > 1 && failNextBatch.compareAndSet(true, false)) {
                                throw new SQLException("a row the database refused", "23000");
                            }
                        }
                        default -> {}
                    }
                    return invoke(method, target, args);
                });
    }

    private static Object invoke(java.lang.reflect.Method method, Object target, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
