package dev.retrysafe.idempotency;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.retrysafe.testkit.CountingDataSource;
import dev.retrysafe.testkit.FakeClock;
import dev.retrysafe.testkit.ThrowawayDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The protocol the filter uses, claim inside the operation's transaction and then
 * {@link IdempotencyStore#finished}, for every {@link ClaimMode} on each database: the same
 * answers whatever holds the claim. A subclass supplies the database and the mode.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class TransactionClaimsContract {

    static final Duration LEASE = Duration.ofSeconds(30);
    private static final Duration RETENTION = Duration.ofHours(24);
    private static final Duration DEADLINE = Duration.ofSeconds(20);

    private ThrowawayDatabase database;
    CountingDataSource dataSource;
    JdbcIdempotencyStore store;
    FakeClock clock;

    protected abstract ThrowawayDatabase openDatabase();

    protected abstract ClaimMode mode();

    @BeforeAll
    void createSchema() throws Exception {
        database = openDatabase();
        dataSource = database.dataSource();
        execute(JdbcIdempotencyStore.schemaSql());
        execute("CREATE TABLE effects (id VARCHAR(64) PRIMARY KEY)");
    }

    @AfterAll
    void dropDatabase() throws Exception {
        if (database != null) {
            database.close();
        }
    }

    @BeforeEach
    void emptyTables() throws SQLException {
        execute("DELETE FROM idempotency_keys");
        execute("DELETE FROM effects");
        clock = new FakeClock();
        store = JdbcIdempotencyStore.builder(dataSource)
                .retention(RETENTION)
                .claims(mode())
                .build();
    }

    @AfterEach
    void everyConnectionWasReturned() {
        assertThat(dataSource.openConnections()).as("connections left open").isZero();
    }

    @Test
    void aFirstUseRunsOnceAndItsAnswerIsReplayedToTheSameRequestOnly() throws Exception {
        assertThat(store.claims()).isEqualTo(mode());
        StoredResponse answer = created("pay_1");
        assertThat(runOnce("k", fp("a"), answer, "effect-1")).isInstanceOf(ClaimOutcome.Acquired.class);

        clock.advance(Duration.ofHours(1));
        assertThat(claimAndEnd("k", fp("a"))).isEqualTo(new ClaimOutcome.Replay(answer));
        assertThat(claimAndEnd("k", fp("b"))).isInstanceOf(ClaimOutcome.Mismatch.class);
        assertThat(claimAndEnd("other", fp("a"))).isInstanceOf(ClaimOutcome.Acquired.class);
        assertThat(strings("SELECT id FROM effects")).containsExactly("effect-1");
        assertThat(strings("SELECT idem_key FROM idempotency_keys")).containsExactly("k");
    }

    /**
     * Only claim rows are committed apart from the operation's transaction, so only they may be
     * claimed before it begins (one pooled connection at a time); a lock, or an in-process claim
     * that reads through the transaction, must be claimed in it.
     */
    @Test
    void saysWhetherItsClaimsTakeAConnectionOfTheirOwn() {
        assertThat(store.claimsOnOwnConnection()).isEqualTo(mode() == ClaimMode.ROWS);
    }

    @Test
    void whileTheFirstUseRunsTheSameRequestIsInFlight() throws Exception {
        try (Connection first = transaction()) {
            Claim held = acquired(store.claim(first, scope("k"), fp("a"), clock.instant(), LEASE));

            assertThat(claimAndEnd("k", fp("a"))).isInstanceOf(ClaimOutcome.InFlight.class);
            assertThat(claimAndEnd("k", fp("b"))).as("a different request").isInstanceOf(ClaimOutcome.Mismatch.class);
            assertThat(claimAndEnd("k", fp("a")))
                    .as("the same again: the different one held nothing")
                    .isInstanceOf(ClaimOutcome.InFlight.class);

            store.complete(first, held, created("pay_1"), clock.instant());
            first.commit();
            store.finished(held, true);
        }
        assertThat(claimAndEnd("k", fp("a"))).isInstanceOf(ClaimOutcome.Replay.class);
        assertThat(claimAndEnd("k", fp("b"))).isInstanceOf(ClaimOutcome.Mismatch.class);
    }

    @Test
    void aRolledBackOperationLeavesNothingAndTheNextTryRuns() throws Exception {
        try (Connection first = transaction()) {
            Claim held = acquired(store.claim(first, scope("k"), fp("a"), clock.instant(), LEASE));
            insertEffect(first, "lost");
            first.rollback();
            store.finished(held, false);
        }
        assertThat(runOnce("k", fp("a"), created("pay_2"), "kept")).isInstanceOf(ClaimOutcome.Acquired.class);
        assertThat(strings("SELECT id FROM effects")).containsExactly("kept");
        assertThat(claimAndEnd("k", fp("a"))).isEqualTo(new ClaimOutcome.Replay(created("pay_2")));
    }

    @Test
    void concurrentReplaysDoNotWaitOnEachOther() throws Exception {
        runOnce("k", fp("a"), created("pay_1"), "effect");
        try (Connection open = transaction()) {
            // a replay whose transaction has not ended yet
            assertThat(store.claim(open, scope("k"), fp("a"), clock.instant(), LEASE))
                    .isInstanceOf(ClaimOutcome.Replay.class);
            assertThat(claimAndEnd("k", fp("a"))).isInstanceOf(ClaimOutcome.Replay.class);
            open.rollback();
        }
    }

    @Test
    void anAnswerPastRetentionIsForgottenAndReplacedByTheNextUse() throws Exception {
        runOnce("k", fp("a"), created("pay_1"), "old");
        clock.advance(RETENTION.plusMillis(1));

        ClaimOutcome renewed = runOnce("k", fp("b"), created("pay_2"), "new");

        assertThat(renewed).isInstanceOf(ClaimOutcome.Acquired.class);
        assertThat(claimAndEnd("k", fp("b"))).isEqualTo(new ClaimOutcome.Replay(created("pay_2")));
        assertThat(strings("SELECT idem_key FROM idempotency_keys")).containsExactly("k");
        assertThat(strings("SELECT id FROM effects ORDER BY id")).containsExactly("new", "old");
    }

    @Test
    void anAnswerStoredBehindTheHoldersBackMakesItsCompletionFailSoNothingCommitsTwice() throws Exception {
        try (Connection first = transaction()) {
            Claim held = claimedThenLost(first);
            assertThatThrownBy(() -> store.complete(first, held, created("pay_1"), clock.instant()))
                    .isInstanceOfAny(ClaimLostException.class, IdempotencyStoreException.class);
            first.rollback();
            store.finished(held, false);
        }
        assertThat(strings("SELECT id FROM effects")).isEmpty();
    }

    @Test
    void completeAndCommitMakesTheEffectsAndTheAnswerDurableTogetherAndLeavesTheConnectionReusable() throws Exception {
        List<List<String>> seenAtCommit = new ArrayList<>();
        try (Connection tx = transaction()) {
            Claim held = acquired(store.claim(tx, scope("k"), fp("a"), clock.instant(), LEASE));
            insertEffect(tx, "effect-1");
            // what another session sees when the store calls commit(): with advisory locks the
            // COMMIT went with the answer's insert, so the effect is there already; otherwise not yet
            Connection watched = onCommit(tx, () -> seenAtCommit.add(strings("SELECT id FROM effects")));
            store.completeAndCommit(watched, held, created("pay_1"), clock.instant());
            store.finished(held, true);

            // the same connection starts a new transaction as usual, and a rollback still undoes it
            insertEffect(tx, "rolled-back");
            tx.rollback();
        }
        assertThat(seenAtCommit).hasSize(1);
        if (mode() == ClaimMode.POSTGRES_ADVISORY_LOCKS) {
            assertThat(seenAtCommit.get(0))
                    .as("committed in the answer's round trip")
                    .containsExactly("effect-1");
        } else {
            assertThat(seenAtCommit.get(0)).as("committed by commit()").isEmpty();
        }
        assertThat(strings("SELECT id FROM effects")).containsExactly("effect-1");
        assertThat(claimAndEnd("k", fp("a"))).isEqualTo(new ClaimOutcome.Replay(created("pay_1")));
    }

    @Test
    void aLostClaimMakesCompleteAndCommitCommitNothing() throws Exception {
        try (Connection first = transaction()) {
            Claim held = claimedThenLost(first);
            assertThatThrownBy(() -> store.completeAndCommit(first, held, created("pay_1"), clock.instant()))
                    .isInstanceOfAny(ClaimLostException.class, IdempotencyStoreException.class);
            first.rollback();
            store.finished(held, false);
        }
        assertThat(strings("SELECT id FROM effects")).isEmpty();
        assertThat(strings("SELECT response_body FROM idempotency_keys")).hasSize(1);
    }

    @Test
    void oneRequestRunsWhenManyTryOneKeyAtOnce() throws Exception {
        int threads = 12;
        int keys = 20;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            for (int k = 0; k < keys; k++) {
                String key = "race-" + k;
                CountDownLatch start = new CountDownLatch(1);
                List<Future<ClaimOutcome>> tries = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    String effect = key + "-" + t;
                    tries.add(pool.submit(() -> {
                        start.await();
                        return runOnce(key, fp("a"), created(key), effect);
                    }));
                }
                start.countDown();
                int acquiredCount = 0;
                for (Future<ClaimOutcome> f : tries) {
                    ClaimOutcome outcome = f.get(DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
                    assertThat(outcome)
                            .isInstanceOfAny(
                                    ClaimOutcome.Acquired.class,
                                    ClaimOutcome.InFlight.class,
                                    ClaimOutcome.Replay.class);
                    if (outcome instanceof ClaimOutcome.Acquired) {
                        acquiredCount++;
                    }
                }
                assertThat(acquiredCount).as("tries that ran key %s", key).isEqualTo(1);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(strings("SELECT id FROM effects")).hasSize(keys);
        assertThat(strings("SELECT idem_key FROM idempotency_keys")).hasSize(keys);
    }

    @Test
    void aClaimRowLeftByRowModeIsHonoured() throws Exception {
        try (Connection c = dataSource.getConnection();
                PreparedStatement s = c.prepareStatement("""
                INSERT INTO idempotency_keys (account, route, idem_key, fingerprint, lease_token, lease_expires_at, created_at)
                VALUES ('acct', 'POST /v1/payments', 'k', ?, 'old-holder', ?, ?)""")) {
            s.setString(1, fp("a").hex());
            s.setLong(2, clock.instant().plus(LEASE).toEpochMilli());
            s.setLong(3, clock.instant().toEpochMilli());
            s.executeUpdate();
        }
        assertThat(claimAndEnd("k", fp("a"))).isInstanceOf(ClaimOutcome.InFlight.class);
        assertThat(claimAndEnd("k", fp("b"))).isInstanceOf(ClaimOutcome.Mismatch.class);

        clock.advance(LEASE.plusMillis(1));
        assertThat(claimAndEnd("k", fp("b")))
                .as("a dead holder's different request")
                .isInstanceOf(ClaimOutcome.Mismatch.class);
        try (Connection tx = transaction()) {
            ClaimOutcome outcome = store.claim(tx, scope("k"), fp("a"), clock.instant(), LEASE);
            assertThat(outcome)
                    .isInstanceOfSatisfying(
                            ClaimOutcome.Acquired.class,
                            a -> assertThat(a.takenOver()).isTrue());
            Claim claim = acquired(outcome);
            store.complete(tx, claim, created("pay_1"), clock.instant());
            tx.commit();
            store.finished(claim, true);
        }
        assertThat(claimAndEnd("k", fp("a"))).isEqualTo(new ClaimOutcome.Replay(created("pay_1")));
    }

    @Test
    void purgeDeletesStoredAnswersOlderThanTheCutoff() throws Exception {
        runOnce("old", fp("a"), created("pay_1"), "e1");
        clock.advance(Duration.ofHours(2));
        runOnce("new", fp("a"), created("pay_2"), "e2");

        assertThat(store.purge(clock.instant().minus(Duration.ofHours(1)))).isEqualTo(1);
        assertThat(strings("SELECT idem_key FROM idempotency_keys")).containsExactly("new");
    }

    @Test
    void aHolderStuckPastItsLeaseIsTakenOverAndCannotCommit() throws Exception {
        boolean advisory = mode() == ClaimMode.POSTGRES_ADVISORY_LOCKS;
        // advisory locks: the lease is the transaction's idle timeout, in real time; long enough
        // that the check "within the lease" below comes inside it on a loaded machine (at 300 ms
        // it did not, twice, with the load average at 10 on two cores)
        Duration lease = advisory ? Duration.ofSeconds(2) : LEASE;
        Connection stuck = transaction();
        try {
            Claim held = acquired(store.claim(stuck, scope("k"), fp("a"), clock.instant(), lease));
            insertEffect(stuck, "stale");
            assertThat(claimAndEnd("k", fp("a"))).as("within the lease").isInstanceOf(ClaimOutcome.InFlight.class);
            if (advisory) {
                awaitClaim("k", fp("a"), o -> !(o instanceof ClaimOutcome.InFlight));
            } else {
                clock.advance(lease.plusMillis(1));
            }
            ClaimOutcome retry = runOnce("k", fp("a"), created("pay_retry"), "retry");
            assertThat(retry).isInstanceOf(ClaimOutcome.Acquired.class);

            assertThatThrownBy(() -> {
                        store.complete(stuck, held, created("pay_stale"), clock.instant());
                        stuck.commit();
                    })
                    .isInstanceOfAny(ClaimLostException.class, IdempotencyStoreException.class, SQLException.class);
            rollbackQuietly(stuck);
            store.finished(held, false);
        } finally {
            stuck.close();
        }
        assertThat(strings("SELECT id FROM effects")).containsExactly("retry");
        assertThat(claimAndEnd("k", fp("a"))).isEqualTo(new ClaimOutcome.Replay(created("pay_retry")));
    }

    // --- helpers -------------------------------------------------------------------------------

    /**
     * Claims key k in {@code first}, writes an effect there, then lets another holder's answer
     * commit meanwhile (the last guard: the key's primary key; with rows, a takeover).
     */
    private Claim claimedThenLost(Connection first) throws SQLException {
        Claim held = acquired(store.claim(first, scope("k"), fp("a"), clock.instant(), LEASE));
        insertEffect(first, "second");
        try (Connection other = transaction()) {
            if (mode() == ClaimMode.ROWS) {
                execute("UPDATE idempotency_keys SET lease_token = 'someone' WHERE idem_key = 'k'");
            } else {
                insertCompletedRow(other, "k", fp("a"));
            }
            other.commit();
        }
        return held;
    }

    /** Claims in a transaction; if acquired runs the effect, completes and commits; then ends it. */
    ClaimOutcome runOnce(String key, Fingerprint fingerprint, StoredResponse answer, String effect)
            throws SQLException {
        try (Connection tx = transaction()) {
            ClaimOutcome outcome = store.claim(tx, scope(key), fingerprint, clock.instant(), LEASE);
            if (!(outcome instanceof ClaimOutcome.Acquired acquired)) {
                tx.rollback();
                return outcome;
            }
            boolean committed = false;
            try {
                insertEffect(tx, effect);
                store.complete(tx, acquired.claim(), answer, clock.instant());
                tx.commit();
                committed = true;
            } finally {
                if (!committed) {
                    tx.rollback();
                }
                store.finished(acquired.claim(), committed);
            }
            return outcome;
        }
    }

    /** Claims in a transaction that is then rolled back (and the claim, if any, ended). */
    ClaimOutcome claimAndEnd(String key, Fingerprint fingerprint) throws SQLException {
        try (Connection tx = transaction()) {
            ClaimOutcome outcome = store.claim(tx, scope(key), fingerprint, clock.instant(), LEASE);
            tx.rollback();
            if (outcome instanceof ClaimOutcome.Acquired acquired) {
                store.finished(acquired.claim(), false);
            }
            return outcome;
        }
    }

    /** Claims (and ends) until {@code wanted} holds, polling every 20 ms within the deadline. */
    ClaimOutcome awaitClaim(String key, Fingerprint fingerprint, Predicate<ClaimOutcome> wanted) throws SQLException {
        long deadline = System.nanoTime() + DEADLINE.toNanos();
        while (true) {
            ClaimOutcome outcome = claimAndEnd(key, fingerprint);
            if (wanted.test(outcome)) {
                return outcome;
            }
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("still " + outcome + " after " + DEADLINE);
            }
            LockSupport.parkNanos(Duration.ofMillis(20).toNanos());
        }
    }

    /** {@code tx}, running {@code before} just before each {@code commit()} it is asked to make. */
    static Connection onCommit(Connection tx, SqlAction before) {
        return (Connection) java.lang.reflect.Proxy.newProxyInstance(
                Connection.class.getClassLoader(), new Class<?>[] {Connection.class}, (proxy, method, args) -> {
                    if (method.getName().equals("commit") && method.getParameterCount() == 0) {
                        before.run();
                    }
                    try {
                        return method.invoke(tx, args);
                    } catch (java.lang.reflect.InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    /** A step that may fail with an {@link SQLException}. */
    @FunctionalInterface
    interface SqlAction {
        void run() throws SQLException;
    }

    static void rollbackQuietly(Connection c) {
        try {
            c.rollback();
        } catch (SQLException e) {
            // the session may be gone already: nothing to roll back
        }
    }

    Connection transaction() throws SQLException {
        Connection c = dataSource.getConnection();
        c.setAutoCommit(false);
        return c;
    }

    static Claim acquired(ClaimOutcome outcome) {
        assertThat(outcome).isInstanceOf(ClaimOutcome.Acquired.class);
        return ((ClaimOutcome.Acquired) outcome).claim();
    }

    static Scope scope(String key) {
        return new Scope("acct", "POST /v1/payments", ((KeyParse.Valid) IdempotencyKey.parse(key)).key());
    }

    static Fingerprint fp(String body) {
        return Fingerprint.of("POST", "/v1/payments", ("{\"v\":\"" + body + "\"}").getBytes(UTF_8));
    }

    static StoredResponse created(String id) {
        return new StoredResponse(
                201,
                List.of(new HeaderField("Location", "/v1/payments/" + id)),
                ("{\"id\":\"" + id + "\"}").getBytes(UTF_8));
    }

    private void insertCompletedRow(Connection tx, String key, Fingerprint fingerprint) throws SQLException {
        try (PreparedStatement s = tx.prepareStatement("""
                INSERT INTO idempotency_keys (account, route, idem_key, fingerprint, lease_token, lease_expires_at,
                    created_at, completed_at, response_status, response_headers, response_body)
                VALUES ('acct', 'POST /v1/payments', ?, ?, 'someone', 0, ?, ?, 201, '', ?)""")) {
            s.setString(1, key);
            s.setString(2, fingerprint.hex());
            s.setLong(3, clock.instant().toEpochMilli());
            s.setLong(4, clock.instant().toEpochMilli());
            s.setBytes(5, "{}".getBytes(UTF_8));
            s.executeUpdate();
        }
    }

    static void insertEffect(Connection tx, String id) throws SQLException {
        try (PreparedStatement s = tx.prepareStatement("INSERT INTO effects (id) VALUES (?)")) {
            s.setString(1, id);
            s.executeUpdate();
        }
    }

    List<String> strings(String sql) throws SQLException {
        List<String> values = new ArrayList<>();
        try (Connection c = dataSource.getConnection();
                Statement s = c.createStatement();
                ResultSet r = s.executeQuery(sql)) {
            while (r.next()) {
                values.add(r.getString(1));
            }
        }
        return values;
    }

    void execute(String sql) throws SQLException {
        try (Connection c = dataSource.getConnection();
                Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }
}
