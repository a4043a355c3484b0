package dev.retrysafe.idempotency;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.retrysafe.testkit.CountingDataSource;
import dev.retrysafe.testkit.FakeClock;
import dev.retrysafe.testkit.ThrowawayDatabase;
import java.sql.Connection;
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
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The behaviour every {@link IdempotencyStore} backend must show, written once and run against
 * each database by a subclass that supplies a fresh, empty database.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class IdempotencyStoreContract {

    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final Duration RETENTION = Duration.ofHours(24);

    private CountingDataSource dataSource;
    private JdbcIdempotencyStore store;
    private FakeClock clock;

    /** A new, empty database of this test class's own. */
    protected abstract ThrowawayDatabase openDatabase();

    private ThrowawayDatabase database;

    @BeforeAll
    void createSchema() throws Exception {
        database = openDatabase();
        dataSource = database.dataSource();
        try (Connection c = dataSource.getConnection();
                Statement s = c.createStatement()) {
            // the whole script in one execute, as a Flyway Java migration would run it
            s.execute(JdbcIdempotencyStore.schemaSql());
            s.execute("CREATE TABLE effects (id VARCHAR(64) PRIMARY KEY)");
        }
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
        store = JdbcIdempotencyStore.builder(dataSource).retention(RETENTION).build();
    }

    @AfterEach
    void everyConnectionWasReturned() {
        assertThat(dataSource.openConnections()).as("connections left open").isZero();
    }

    // --- claim, complete, replay ------------------------------------------------------------

    @Test
    void firstClaimAcquiresAFreshClaimWithARandomToken() {
        ClaimOutcome first = claim(scope("k1"), fp("a"));
        ClaimOutcome other = claim(scope("k2"), fp("a"));

        assertThat(first).isInstanceOfSatisfying(ClaimOutcome.Acquired.class, acquired -> {
            assertThat(acquired.takenOver()).isFalse();
            assertThat(acquired.claim().leaseExpiresAt())
                    .isEqualTo(clock.instant().plus(LEASE));
            assertThat(acquired.claim().token()).hasSizeGreaterThanOrEqualTo(32);
        });
        assertThat(acquired(other).token()).isNotEqualTo(acquired(first).token());
    }

    @Test
    void completedClaimReplaysTheStoredResponseToTheSameRequest() throws SQLException {
        Claim claim = acquired(claim(scope("k"), fp("a")));
        StoredResponse answer = new StoredResponse(
                201,
                List.of(
                        new HeaderField("Content-Type", "application/json"),
                        new HeaderField("Location", "/v1/payments/pay_1"),
                        new HeaderField("X-Escapes", "a\\b:c")),
                "{\"id\":\"pay_1\"}".getBytes(UTF_8));
        completeAndCommit(claim, answer, "effect-1");

        clock.advance(Duration.ofHours(1));
        ClaimOutcome retry = claim(scope("k"), fp("a"));

        assertThat(retry).isEqualTo(new ClaimOutcome.Replay(answer));
        assertThat(((ClaimOutcome.Replay) retry).response().header("location")).isEqualTo("/v1/payments/pay_1");
    }

    @Test
    void emptyBodyAndNoHeadersAreStoredAsSuch() throws SQLException {
        Claim claim = acquired(claim(scope("k"), fp("a")));
        StoredResponse answer = new StoredResponse(204, List.of(), new byte[0]);
        completeAndCommit(claim, answer, "effect-1");

        assertThat(claim(scope("k"), fp("a"))).isEqualTo(new ClaimOutcome.Replay(answer));
    }

    @Test
    void sameRequestWhileTheFirstRunsIsInFlightWithTheRemainingLease() {
        acquired(claim(scope("k"), fp("a")));
        clock.advance(Duration.ofSeconds(10));

        assertThat(claim(scope("k"), fp("a"))).isEqualTo(new ClaimOutcome.InFlight(Duration.ofSeconds(20)));
    }

    @Test
    void differentRequestWithTheSameKeyIsAMismatchWhileInFlightAndAfterCompletion() throws SQLException {
        Claim claim = acquired(claim(scope("k"), fp("a")));
        assertThat(claim(scope("k"), fp("b"))).isEqualTo(new ClaimOutcome.Mismatch());

        completeAndCommit(claim, ok(), "effect-1");
        assertThat(claim(scope("k"), fp("b"))).isEqualTo(new ClaimOutcome.Mismatch());
    }

    @Test
    void sameKeyOnAnotherRouteOrAccountIsAnotherScope() {
        IdempotencyKey key = new IdempotencyKey("shared");
        acquired(claim(Scope.of("acct_1", "POST", "/v1/payments", key), fp("a")));

        assertThat(claim(Scope.of("acct_1", "POST", "/v1/refunds", key), fp("a")))
                .isInstanceOf(ClaimOutcome.Acquired.class);
        assertThat(claim(Scope.of("acct_2", "POST", "/v1/payments", key), fp("a")))
                .isInstanceOf(ClaimOutcome.Acquired.class);
        assertThat(claim(Scope.of("acct_1", "POST", "/v1/payments", key), fp("a")))
                .isInstanceOf(ClaimOutcome.InFlight.class);
    }

    // --- leases ---------------------------------------------------------------------------------

    @Test
    void leaseIsHeldUntilItsLastMillisecond() {
        acquired(claim(scope("k"), fp("a")));
        clock.advance(LEASE);

        assertThat(claim(scope("k"), fp("a"))).isEqualTo(new ClaimOutcome.InFlight(Duration.ZERO));
    }

    @Test
    void expiredLeaseIsTakenOverOnlyByARetryOfTheSameRequest() {
        Claim dead = acquired(claim(scope("k"), fp("a")));
        clock.advance(LEASE.plusMillis(1));

        assertThat(claim(scope("k"), fp("b")))
                .as("another request under the dead holder's key")
                .isEqualTo(new ClaimOutcome.Mismatch());
        ClaimOutcome takeover = claim(scope("k"), fp("a"));

        assertThat(takeover).isInstanceOfSatisfying(ClaimOutcome.Acquired.class, acquired -> {
            assertThat(acquired.takenOver()).isTrue();
            assertThat(acquired.claim().token()).isNotEqualTo(dead.token());
            assertThat(acquired.claim().leaseExpiresAt())
                    .isEqualTo(clock.instant().plus(LEASE));
        });
        assertThat(claim(scope("k"), fp("a")))
                .as("the new holder has a fresh lease")
                .isInstanceOf(ClaimOutcome.InFlight.class);
    }

    @Test
    void completingAfterATakeoverThrowsClaimLostAndTheCallersTransactionLeavesNoEffect() throws SQLException {
        Claim slow = acquired(claim(scope("k"), fp("a")));
        clock.advance(LEASE.plusSeconds(1));
        Claim successor = acquired(claim(scope("k"), fp("a")));

        try (Connection tx = dataSource.getConnection()) {
            tx.setAutoCommit(false);
            insertEffect(tx, "effect-of-slow");
            assertThatThrownBy(() -> store.complete(tx, slow, ok(), clock.instant()))
                    .isInstanceOf(ClaimLostException.class);
            tx.rollback();
        }
        assertThat(effects()).isEmpty();
        assertThat(claim(scope("k"), fp("a")))
                .as("the successor still holds the key")
                .isInstanceOf(ClaimOutcome.InFlight.class);

        StoredResponse answer = new StoredResponse(201, List.of(), "successor".getBytes(UTF_8));
        completeAndCommit(successor, answer, "effect-of-successor");
        assertThat(claim(scope("k"), fp("a"))).isEqualTo(new ClaimOutcome.Replay(answer));
        assertThat(effects()).containsExactly("effect-of-successor");
    }

    @Test
    void slowHolderWhoseLeaseRanOutCanStillCompleteWhenNobodyTookOver() throws SQLException {
        Claim slow = acquired(claim(scope("k"), fp("a")));
        clock.advance(LEASE.multipliedBy(3));

        completeAndCommit(slow, ok(), "effect-1");

        assertThat(claim(scope("k"), fp("a"))).isEqualTo(new ClaimOutcome.Replay(ok()));
    }

    // --- transactions ------------------------------------------------------------------------

    @Test
    void storedAnswerAndEffectCommitTogetherOrNotAtAll() throws SQLException {
        Claim claim = acquired(claim(scope("k"), fp("a")));
        try (Connection tx = dataSource.getConnection()) {
            tx.setAutoCommit(false);
            insertEffect(tx, "effect-1");
            store.complete(tx, claim, ok(), clock.instant());
            tx.rollback();
        }
        assertThat(effects()).isEmpty();
        assertThat(claim(scope("k"), fp("a")))
                .as("rolled back: still in progress")
                .isInstanceOf(ClaimOutcome.InFlight.class);

        completeAndCommit(claim, ok(), "effect-1");
        assertThat(effects()).containsExactly("effect-1");
        assertThat(claim(scope("k"), fp("a"))).isEqualTo(new ClaimOutcome.Replay(ok()));
    }

    @Test
    void completingTwiceThrowsClaimLost() throws SQLException {
        Claim claim = acquired(claim(scope("k"), fp("a")));
        completeAndCommit(claim, ok(), "effect-1");

        try (Connection tx = dataSource.getConnection()) {
            tx.setAutoCommit(false);
            assertThatThrownBy(() -> store.complete(tx, claim, ok(), clock.instant()))
                    .isInstanceOf(ClaimLostException.class);
            tx.rollback();
        }
    }

    // --- release -------------------------------------------------------------------------------

    @Test
    void releaseLetsTheNextClaimAcquire() {
        Claim failed = acquired(claim(scope("k"), fp("a")));

        assertThat(store.release(failed)).isTrue();

        assertThat(claim(scope("k"), fp("a")))
                .isInstanceOfSatisfying(
                        ClaimOutcome.Acquired.class,
                        acquired -> assertThat(acquired.takenOver()).isFalse());
    }

    @Test
    void releasingALostOrCompletedClaimChangesNothing() throws SQLException {
        Claim dead = acquired(claim(scope("k"), fp("a")));
        clock.advance(LEASE.plusSeconds(1));
        Claim successor = acquired(claim(scope("k"), fp("a")));

        assertThat(store.release(dead)).isFalse();
        assertThat(claim(scope("k"), fp("a"))).isInstanceOf(ClaimOutcome.InFlight.class);

        completeAndCommit(successor, ok(), "effect-1");
        assertThat(store.release(successor)).isFalse();
        assertThat(claim(scope("k"), fp("a"))).isEqualTo(new ClaimOutcome.Replay(ok()));
    }

    // --- retention and purge ----------------------------------------------------------------------

    @Test
    void storedAnswerOlderThanTheRetentionCountsAsAbsentBeforeAnyPurge() throws SQLException {
        completeAndCommit(acquired(claim(scope("k"), fp("a"))), ok(), "effect-1");

        clock.advance(RETENTION);
        assertThat(claim(scope("k"), fp("b")))
                .as("still retained at exactly 24 h")
                .isEqualTo(new ClaimOutcome.Mismatch());

        clock.advance(Duration.ofMillis(1));
        ClaimOutcome reuse = claim(scope("k"), fp("b"));
        assertThat(reuse)
                .isInstanceOfSatisfying(
                        ClaimOutcome.Acquired.class,
                        acquired -> assertThat(acquired.takenOver()).isFalse());
        assertThat(claim(scope("k"), fp("b")))
                .as("the replacement is a live claim")
                .isInstanceOf(ClaimOutcome.InFlight.class);
    }

    @Test
    void purgeDeletesOldAnswersAndAbandonedClaimsOnly() throws SQLException {
        Instant start = clock.instant();
        completeAndCommit(acquired(claim(scope("old-answer"), fp("a"))), ok(), "e1");
        acquired(claim(scope("abandoned"), fp("a")));
        clock.advance(Duration.ofHours(2));
        completeAndCommit(acquired(claim(scope("recent-answer"), fp("a"))), ok(), "e2");
        acquired(claim(scope("live"), fp("a")));

        int purged = store.purge(start.plus(Duration.ofHours(1)));

        assertThat(purged).isEqualTo(2);
        assertThat(keys()).containsExactlyInAnyOrder("recent-answer", "live");
        assertThat(store.purge(start.plus(Duration.ofHours(1)))).isZero();
    }

    @Test
    void purgeKeepsAClaimCreatedBeforeTheCutoffWhoseLeaseHasNotRunOut() {
        acquired(store.claim(scope("long-lease"), fp("a"), clock.instant(), Duration.ofHours(3)));

        assertThat(store.purge(clock.instant().plus(Duration.ofHours(1)))).isZero();
        assertThat(keys()).containsExactly("long-lease");
    }

    @Test
    void purgeWorksThroughManyBatches() throws SQLException {
        JdbcIdempotencyStore smallBatches =
                JdbcIdempotencyStore.builder(dataSource).purgeBatchSize(2).build();
        for (int i = 0; i < 7; i++) {
            completeAndCommit(acquired(claim(scope("k" + i), fp("a"))), ok(), "e" + i);
        }
        clock.advance(Duration.ofSeconds(1));
        acquired(claim(scope("fresh"), fp("a")));

        assertThat(smallBatches.purge(clock.instant())).isEqualTo(7);
        assertThat(keys()).containsExactly("fresh");
    }

    // --- concurrency ---------------------------------------------------------------------------

    @Test
    void thirtyTwoThreadsClaimingOneKeyGetExactlyOneAcquired() throws Exception {
        int threads = 32;
        List<ClaimOutcome> outcomes = claimAllAtOnce("contended", threads);

        assertThat(outcomes).filteredOn(ClaimOutcome.Acquired.class::isInstance).hasSize(1);
        assertThat(outcomes).filteredOn(ClaimOutcome.InFlight.class::isInstance).hasSize(threads - 1);
    }

    @Test
    void thirtyTwoThreadsTakingOverOneExpiredLeaseGetExactlyOneAcquired() throws Exception {
        acquired(claim(scope("expired"), fp("a")));
        clock.advance(LEASE.plusSeconds(1));
        int threads = 32;
        List<ClaimOutcome> outcomes = claimAllAtOnce("expired", threads);

        assertThat(outcomes)
                .filteredOn(ClaimOutcome.Acquired.class::isInstance)
                .hasSize(1)
                .allSatisfy(
                        o -> assertThat(((ClaimOutcome.Acquired) o).takenOver()).isTrue());
        assertThat(outcomes).filteredOn(ClaimOutcome.InFlight.class::isInstance).hasSize(threads - 1);
    }

    /** {@code threads} claims of one key with the same request, released together by a start gate. */
    private List<ClaimOutcome> claimAllAtOnce(String key, int threads) throws Exception {
        CountDownLatch startGate = new CountDownLatch(1);
        List<Future<ClaimOutcome>> results = new ArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            for (int i = 0; i < threads; i++) {
                results.add(pool.submit(() -> {
                    if (!startGate.await(10, TimeUnit.SECONDS)) {
                        throw new IllegalStateException("start gate never opened");
                    }
                    return claim(scope(key), fp("a"));
                }));
            }
            startGate.countDown();
            List<ClaimOutcome> outcomes = new ArrayList<>();
            for (Future<ClaimOutcome> result : results) {
                outcomes.add(result.get(30, TimeUnit.SECONDS)); // a worker's exception fails the test here
            }
            return outcomes;
        } finally {
            pool.shutdownNow();
            assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        }
    }

    // --- helpers ----------------------------------------------------------------------------------

    private ClaimOutcome claim(Scope scope, Fingerprint fingerprint) {
        return store.claim(scope, fingerprint, clock.instant(), LEASE);
    }

    private static Claim acquired(ClaimOutcome outcome) {
        assertThat(outcome).isInstanceOf(ClaimOutcome.Acquired.class);
        return ((ClaimOutcome.Acquired) outcome).claim();
    }

    private static Scope scope(String key) {
        return Scope.of("acct_1", "POST", "/v1/payments", new IdempotencyKey(key));
    }

    private static Fingerprint fp(String body) {
        return Fingerprint.of("POST", "/v1/payments", ("{\"v\":\"" + body + "\"}").getBytes(UTF_8));
    }

    private static StoredResponse ok() {
        return new StoredResponse(200, List.of(new HeaderField("Content-Type", "text/plain")), "ok".getBytes(UTF_8));
    }

    private void completeAndCommit(Claim claim, StoredResponse answer, String effect) throws SQLException {
        try (Connection tx = dataSource.getConnection()) {
            tx.setAutoCommit(false);
            insertEffect(tx, effect);
            store.complete(tx, claim, answer, clock.instant());
            tx.commit();
        }
    }

    private static void insertEffect(Connection tx, String id) throws SQLException {
        try (var s = tx.prepareStatement("INSERT INTO effects (id) VALUES (?)")) {
            s.setString(1, id);
            s.executeUpdate();
        }
    }

    private List<String> effects() throws SQLException {
        return strings("SELECT id FROM effects ORDER BY id");
    }

    private List<String> keys() {
        try {
            return strings("SELECT idem_key FROM idempotency_keys ORDER BY idem_key");
        } catch (SQLException e) {
            throw new AssertionError(e);
        }
    }

    private List<String> strings(String sql) throws SQLException {
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

    private void execute(String sql) throws SQLException {
        try (Connection c = dataSource.getConnection();
                Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }
}
