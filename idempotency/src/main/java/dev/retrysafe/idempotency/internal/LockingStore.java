package dev.retrysafe.idempotency.internal;

import dev.retrysafe.common.Transactions;
import dev.retrysafe.idempotency.Claim;
import dev.retrysafe.idempotency.ClaimLostException;
import dev.retrysafe.idempotency.ClaimMode;
import dev.retrysafe.idempotency.ClaimOutcome;
import dev.retrysafe.idempotency.Fingerprint;
import dev.retrysafe.idempotency.IdempotencyStore;
import dev.retrysafe.idempotency.IdempotencyStoreException;
import dev.retrysafe.idempotency.Scope;
import dev.retrysafe.idempotency.StoredResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * The store of {@link ClaimMode#POSTGRES_ADVISORY_LOCKS} and {@link ClaimMode#IN_PROCESS}: a claim
 * lives outside the table (an advisory lock of the operation's transaction, or an entry in this
 * object), and a key's row is inserted once, already completed, by {@link #complete}. So a first
 * use costs no transaction of its own, and a holder that dies leaves nothing to clean up. Rows
 * of {@link ClaimMode#ROWS} found in the table (another mode used before) are honoured: an
 * unexpired claim is in flight, an expired one of the same request is taken over. The primary key
 * stays the last guard: if two holders ever both ran, the second insert fails and its operation
 * rolls back ({@link ClaimLostException}). Threadsafe.
 */
public final class LockingStore implements IdempotencyStore {

    private final JdbcStore rows;
    private final StoreConfig config;
    private final boolean advisory;
    /** IN_PROCESS: the claims held now, by scope. */
    private final ConcurrentHashMap<Scope, Holder> holders = new ConcurrentHashMap<>();

    /** A claim held in memory: whose it is, for which request, until when. */
    private record Holder(String token, String fingerprint, long leaseExpiresAt) {}

    /** A store of {@code mode} (not {@link ClaimMode#ROWS}) whose purges use {@code dataSource}. */
    public LockingStore(javax.sql.DataSource dataSource, StoreConfig config, ClaimMode mode) {
        if (mode == ClaimMode.ROWS) {
            throw new IllegalArgumentException("ROWS claims are JdbcStore's");
        }
        this.rows = new JdbcStore(dataSource, config);
        this.config = config;
        this.advisory = mode == ClaimMode.POSTGRES_ADVISORY_LOCKS;
    }

    @Override
    public ClaimOutcome claim(Scope scope, Fingerprint fingerprint, Instant now, Duration lease) {
        throw new UnsupportedOperationException("this store claims inside the operation's transaction:"
                + " use claim(Connection, Scope, Fingerprint, Instant, Duration)");
    }

    @Override
    public ClaimOutcome claim(
            Connection transaction, Scope scope, Fingerprint fingerprint, Instant now, Duration lease) {
        if (lease.isNegative() || lease.isZero()) {
            throw new IllegalArgumentException("lease must be positive: " + lease);
        }
        try {
            return advisory
                    ? claimWithLock(transaction, scope, fingerprint, now, lease)
                    : claimInProcess(transaction, scope, fingerprint, now, lease);
        } catch (SQLException e) {
            throw new IdempotencyStoreException("claim failed for " + scope.account() + " / " + scope.route(), e);
        }
    }

    private ClaimOutcome claimWithLock(Connection tx, Scope scope, Fingerprint fingerprint, Instant now, Duration lease)
            throws SQLException {
        long nowMillis = now.toEpochMilli();
        long retentionCutoff = nowMillis - config.retention().toMillis();
        StoredRow row;
        String claim;
        try (PreparedStatement s = tx.prepareStatement(StoreSql.LOCK_THEN_READ)) {
            s.setString(1, Long.toString(Math.max(1, lease.toMillis())));
            JdbcStore.bindScope(s, 2, scope);
            s.setLong(5, retentionCutoff);
            s.setLong(6, lockKey(scope, fingerprint));
            s.setLong(7, lockKey(scope, null));
            JdbcStore.bindScope(s, 8, scope);
            if (!s.execute()) {
                throw new SQLException("the lock statement returned no result");
            }
            try (ResultSet r = s.getResultSet()) {
                r.next(); // always one row
                claim = r.getString("claim");
            }
            if (!s.getMoreResults()) {
                throw new SQLException("the read statement returned no result");
            }
            try (ResultSet r = s.getResultSet()) {
                row = r.next() ? StoredRow.from(r) : null;
            }
        }
        RowVerdict verdict = RowVerdict.of(row, fingerprint, nowMillis, retentionCutoff);
        if (verdict == RowVerdict.REPLAY || verdict == RowVerdict.MISMATCH) {
            return decide(tx, verdict, row, scope, fingerprint, now, lease); // a stored answer decides
        }
        switch (claim) {
            case "same" -> {
                return new ClaimOutcome.InFlight(lease);
            }
            case "other" -> {
                return new ClaimOutcome.Mismatch();
            }
            case "mine" -> {
                // the key is ours: the row (none, or one to replace) decides what to do
            }
            default -> {
                // "answered", yet the answer was gone by the read (purged, or replaced past
                // retention): never run without the locks; the retry will see
                return new ClaimOutcome.InFlight(lease);
            }
        }
        return decide(tx, verdict, row, scope, fingerprint, now, lease);
    }

    private ClaimOutcome claimInProcess(
            Connection tx, Scope scope, Fingerprint fingerprint, Instant now, Duration lease) throws SQLException {
        long nowMillis = now.toEpochMilli();
        long retentionCutoff = nowMillis - config.retention().toMillis();
        Holder mine = new Holder(
                JdbcStore.newToken(), fingerprint.hex(), now.plus(lease).toEpochMilli());
        boolean takenOver = false;
        Holder held = holders.putIfAbsent(scope, mine);
        if (held != null) {
            // held by another request: a stored answer still answers at once (concurrent replays
            // of one key never wait on each other); else the holder decides
            StoredRow stored = JdbcStore.read(tx, scope);
            RowVerdict early = RowVerdict.of(stored, fingerprint, nowMillis, retentionCutoff);
            if (early == RowVerdict.REPLAY || early == RowVerdict.MISMATCH) {
                return decide(tx, early, stored, scope, fingerprint, now, lease);
            }
            while (held != null) {
                if (!held.fingerprint().equals(mine.fingerprint())) {
                    return new ClaimOutcome.Mismatch(); // the holder's request is known: a different one
                }
                if (held.leaseExpiresAt() >= nowMillis) {
                    return new ClaimOutcome.InFlight(Duration.ofMillis(held.leaseExpiresAt() - nowMillis));
                }
                if (holders.replace(scope, held, mine)) {
                    takenOver = true; // its holder is stuck past its lease; its completion will fail
                    break;
                }
                held = holders.putIfAbsent(scope, mine);
            }
        }
        // the key is ours: its row, read now, holds every answer committed by an earlier holder
        // (a holder lets go only after its commit), so one read decides a first use or a replay
        StoredRow row = JdbcStore.read(tx, scope);
        ClaimOutcome outcome;
        try {
            outcome = decide(
                    tx,
                    RowVerdict.of(row, fingerprint, nowMillis, retentionCutoff),
                    row,
                    scope,
                    fingerprint,
                    now,
                    lease);
        } catch (SQLException | RuntimeException e) {
            holders.remove(scope, mine);
            throw e;
        }
        if (!(outcome instanceof ClaimOutcome.Acquired acquired)) {
            holders.remove(scope, mine);
            return outcome;
        }
        Claim claim = new Claim(scope, fingerprint, mine.token(), Instant.ofEpochMilli(mine.leaseExpiresAt()));
        return new ClaimOutcome.Acquired(claim, takenOver || acquired.takenOver());
    }

    /** The outcome once the key is held (or needs not be): the row decides. */
    private static ClaimOutcome decide(
            Connection tx,
            RowVerdict verdict,
            @Nullable StoredRow row,
            Scope scope,
            Fingerprint fingerprint,
            Instant now,
            Duration lease)
            throws SQLException {
        Claim claim = new Claim(scope, fingerprint, JdbcStore.newToken(), now.plus(lease));
        return switch (verdict) {
            case FREE -> new ClaimOutcome.Acquired(claim, false);
            case REPLAY -> new ClaimOutcome.Replay(present(row).response());
            case MISMATCH -> new ClaimOutcome.Mismatch();
            case IN_FLIGHT ->
                new ClaimOutcome.InFlight(
                        Duration.ofMillis(Math.max(0, present(row).leaseExpiresAt() - now.toEpochMilli())));
            case EXPIRED_ANSWER ->
                delete(
                                tx,
                                StoreSql.DELETE_EXPIRED_ANSWER,
                                scope,
                                present(row),
                                present(row).createdAt() + 1)
                        ? new ClaimOutcome.Acquired(claim, false)
                        : new ClaimOutcome.InFlight(lease);
            case ABANDONED ->
                delete(tx, StoreSql.DELETE_EXPIRED_LEASE, scope, present(row), now.toEpochMilli())
                        ? new ClaimOutcome.Acquired(claim, true)
                        : new ClaimOutcome.InFlight(lease);
        };
    }

    @Override
    public void complete(Connection transaction, Claim claim, StoredResponse response, Instant now) {
        store(transaction, StoreSql.INSERT_COMPLETED, claim, response, now);
    }

    /**
     * With advisory locks (PostgreSQL), the answer's insert and the {@code COMMIT} go as one
     * command of two statements: one round trip. If the insert fails (another holder's answer is
     * there), PostgreSQL skips the {@code COMMIT} and leaves the transaction failed, so nothing
     * commits and the caller rolls back as after {@link #complete}. pgjdbc follows the
     * transaction's state from the server, so the {@code commit()} that follows (for the
     * connection pool's bookkeeping) finds it ended and sends nothing.
     */
    @Override
    public void completeAndCommit(Connection transaction, Claim claim, StoredResponse response, Instant now)
            throws SQLException {
        if (!advisory) {
            IdempotencyStore.super.completeAndCommit(transaction, claim, response, now);
            return;
        }
        store(transaction, StoreSql.INSERT_COMPLETED_THEN_COMMIT, claim, response, now);
        transaction.commit();
    }

    private void store(Connection transaction, String sql, Claim claim, StoredResponse response, Instant now) {
        if (!advisory) {
            Holder held = holders.get(claim.scope());
            if (held == null || !held.token().equals(claim.token())) {
                throw new ClaimLostException(claim.scope());
            }
        }
        long nowMillis = now.toEpochMilli();
        try (PreparedStatement s = transaction.prepareStatement(sql)) {
            JdbcStore.bindClaim(s, claim, nowMillis);
            s.setLong(8, nowMillis);
            s.setInt(9, response.status());
            s.setString(10, HeaderCodec.encode(response.headers()));
            s.setBytes(11, response.body());
            s.execute();
        } catch (SQLException e) {
            if (JdbcStore.hasState(e, StoreSql.UNIQUE_VIOLATION) || Transactions.isTransientConflict(e)) {
                // another holder stored an answer first: this operation must not commit
                throw new ClaimLostException(claim.scope());
            }
            throw new IdempotencyStoreException(
                    "complete failed for " + claim.scope().account() + " / "
                            + claim.scope().route(),
                    e);
        }
    }

    /** The claim is a lock of the caller's transaction, or an entry in memory that reads through it. */
    @Override
    public boolean claimsOnOwnConnection() {
        return false;
    }

    /** Advisory locks end with the transaction; an in-process claim ends here. */
    @Override
    public void finished(Claim claim, boolean committed) {
        release(claim);
    }

    /**
     * In process: forgets the claim. With advisory locks: nothing, since only the end of the
     * claim's transaction releases its lock (and does).
     */
    @Override
    public boolean release(Claim claim) {
        if (advisory) {
            return false;
        }
        Holder held = holders.get(claim.scope());
        return held != null && held.token().equals(claim.token()) && holders.remove(claim.scope(), held);
    }

    /** Deletes stored answers as {@link JdbcStore} does; in process, also forgets claims expired before {@code cutoff}. */
    @Override
    public int purge(Instant cutoff) {
        long cutoffMillis = cutoff.toEpochMilli();
        holders.values().removeIf(h -> h.leaseExpiresAt() < cutoffMillis);
        return rows.purge(cutoff);
    }

    /** In-process claims held now (for tests and metrics). */
    public int heldClaims() {
        return holders.size();
    }

    /** Deletes the row read, if it is still that row; false if it changed meanwhile. */
    private static boolean delete(Connection tx, String sql, Scope scope, StoredRow row, long threshold)
            throws SQLException {
        try (PreparedStatement s = tx.prepareStatement(sql)) {
            JdbcStore.bindScopeAndToken(s, 1, scope, row.leaseToken());
            s.setLong(5, threshold);
            return s.executeUpdate() == 1;
        }
    }

    private static StoredRow present(@Nullable StoredRow row) {
        if (row == null) {
            throw new IllegalStateException("the verdict needs a row");
        }
        return row;
    }

    /**
     * An advisory lock: 64 bits of SHA-256 over the scope's three parts and, for the request's
     * lock, its fingerprint (each part length-prefixed, so no two run together; the key's lock
     * has no fourth part, the request's lock a fourth of 64 characters, so they never coincide).
     * Two scopes sharing a lock would only make one wait for the other (an in-flight answer),
     * never share an answer; at 64 bits that is out of reach.
     */
    static long lockKey(Scope scope, @Nullable Fingerprint request) {
        MessageDigest sha;
        try {
            sha = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
        String[] parts = request == null
                ? new String[] {scope.account(), scope.route(), scope.key().value()}
                : new String[] {scope.account(), scope.route(), scope.key().value(), request.hex()};
        for (String part : parts) {
            byte[] bytes = part.getBytes(StandardCharsets.UTF_8);
            sha.update(ByteBuffer.allocate(4).putInt(bytes.length).array());
            sha.update(bytes);
        }
        return ByteBuffer.wrap(sha.digest()).getLong();
    }
}
