package dev.retrysafe.idempotency;

import dev.retrysafe.idempotency.internal.JdbcStore;
import dev.retrysafe.idempotency.internal.LockingStore;
import dev.retrysafe.idempotency.internal.SchemaScript;
import dev.retrysafe.idempotency.internal.StoreConfig;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import javax.sql.DataSource;

/**
 * The JDBC store for PostgreSQL (15+) and H2 (2.x, {@code MODE=PostgreSQL}), one table
 * {@code idempotency_keys} created by {@link #schemaSql()}. Several processes may share one
 * database: every claim is atomic in the database itself. This class is threadsafe.
 *
 * <pre>{@code
 * IdempotencyStore store = JdbcIdempotencyStore.builder(dataSource)
 *         .retention(Duration.ofHours(24))
 *         .build();
 * }</pre>
 */
public final class JdbcIdempotencyStore implements IdempotencyStore {

    /** How long stored answers are replayed unless configured otherwise. */
    public static final Duration DEFAULT_RETENTION = Duration.ofHours(24);
    /** How many keys one purge transaction deletes at most unless configured otherwise. */
    public static final int DEFAULT_PURGE_BATCH_SIZE = 1_000;

    private final IdempotencyStore store;
    private final StoreConfig config;
    private final ClaimMode claims;

    private JdbcIdempotencyStore(DataSource dataSource, StoreConfig config, ClaimMode claims) {
        this.store = claims == ClaimMode.ROWS
                ? new JdbcStore(dataSource, config)
                : new LockingStore(dataSource, config, claims);
        this.config = config;
        this.claims = claims;
    }

    /**
     * A store over {@code dataSource} with the default retention (24 hours) and purge
     * batch size. The table must already exist (see {@link #schemaSql()}).
     */
    public static JdbcIdempotencyStore create(DataSource dataSource) {
        return builder(dataSource).build();
    }

    /** A builder of a store over {@code dataSource}. */
    public static Builder builder(DataSource dataSource) {
        return new Builder(dataSource);
    }

    /**
     * The DDL of the store's table and index, runnable unchanged on H2 ({@code MODE=PostgreSQL})
     * and PostgreSQL. It holds <b>two statements</b>, each ended by {@code ;} at the end of a line,
     * and {@code --} comment lines. Both drivers accept the whole text in one
     * {@code Statement.execute}; to run the statements one by one use {@link #schemaStatements()}.
     */
    public static String schemaSql() {
        return SchemaScript.text();
    }

    /** The statements of {@link #schemaSql()}, in order, without comments or terminators. */
    public static List<String> schemaStatements() {
        return SchemaScript.statements();
    }

    /** How long stored answers are replayed; older ones count as absent even before a purge. */
    public Duration retention() {
        return config.retention();
    }

    /** How this store holds claims. */
    public ClaimMode claims() {
        return claims;
    }

    /**
     * {@inheritDoc}
     *
     * @throws UnsupportedOperationException unless the store's claims are {@link ClaimMode#ROWS}
     */
    @Override
    public ClaimOutcome claim(Scope scope, Fingerprint fingerprint, Instant now, Duration lease) {
        return store.claim(scope, fingerprint, now, lease);
    }

    @Override
    public ClaimOutcome claim(
            Connection transaction, Scope scope, Fingerprint fingerprint, Instant now, Duration lease) {
        return store.claim(transaction, scope, fingerprint, now, lease);
    }

    /** {@code true} for {@link ClaimMode#ROWS}; the other modes claim in the caller's transaction or in memory. */
    @Override
    public boolean claimsOnOwnConnection() {
        return store.claimsOnOwnConnection();
    }

    @Override
    public void finished(Claim claim, boolean committed) {
        store.finished(claim, committed);
    }

    @Override
    public void complete(Connection transaction, Claim claim, StoredResponse response, Instant now) {
        store.complete(transaction, claim, response, now);
    }

    @Override
    public void completeAndCommit(Connection transaction, Claim claim, StoredResponse response, Instant now)
            throws SQLException {
        store.completeAndCommit(transaction, claim, response, now);
    }

    @Override
    public boolean release(Claim claim) {
        return store.release(claim);
    }

    /**
     * {@inheritDoc}
     *
     * <p>Callers usually pass {@code now.minus(retention())} on a schedule.
     */
    @Override
    public int purge(Instant cutoff) {
        return store.purge(cutoff);
    }

    /** Builds a {@link JdbcIdempotencyStore}. Not threadsafe; the built store is immutable. */
    public static final class Builder {
        private final DataSource dataSource;
        private Duration retention = DEFAULT_RETENTION;
        private int purgeBatchSize = DEFAULT_PURGE_BATCH_SIZE;
        private ClaimMode claims = ClaimMode.ROWS;

        private Builder(DataSource dataSource) {
            this.dataSource = dataSource;
        }

        /** How long stored answers are replayed (positive; default 24 hours). */
        public Builder retention(Duration retention) {
            this.retention = StoreConfig.checkRetention(retention);
            return this;
        }

        /** How many keys one purge transaction deletes at most (1 to 100000; default 1000). */
        public Builder purgeBatchSize(int purgeBatchSize) {
            this.purgeBatchSize = StoreConfig.checkPurgeBatchSize(purgeBatchSize);
            return this;
        }

        /**
         * How claims are held (default {@link ClaimMode#ROWS}, which suits any deployment).
         * {@link ClaimMode#POSTGRES_ADVISORY_LOCKS} needs PostgreSQL; {@link ClaimMode#IN_PROCESS}
         * needs a database no other process writes keys to.
         */
        public Builder claims(ClaimMode claims) {
            this.claims = java.util.Objects.requireNonNull(claims, "claims");
            return this;
        }

        /** The store. */
        public JdbcIdempotencyStore build() {
            return new JdbcIdempotencyStore(dataSource, new StoreConfig(retention, purgeBatchSize), claims);
        }
    }
}
