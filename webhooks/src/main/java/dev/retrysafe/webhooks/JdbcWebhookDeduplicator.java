package dev.retrysafe.webhooks;

import dev.retrysafe.webhooks.internal.Ids;
import dev.retrysafe.webhooks.internal.JdbcDedup;
import dev.retrysafe.webhooks.internal.SchemaScript;
import dev.retrysafe.webhooks.internal.TtlIdSet;
import java.sql.Connection;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * A {@link WebhookDeduplicator} in PostgreSQL (15+) or H2 (2.x, {@code MODE=PostgreSQL}): one
 * table {@code received_webhooks} (id as primary key, first-seen time) created by
 * {@link #schemaSql()}. Any number of receiver instances may share it: "first time" is decided by
 * the database's primary key, so exactly one of any concurrent claims of an id wins.
 *
 * <p>Expired ids count as absent at once; their rows are deleted by {@link #purgeExpired()},
 * which the application calls on a schedule (hourly is plenty). Times come from the injected
 * wall clock, never the database's. This class is threadsafe.
 *
 * <pre>{@code
 * JdbcWebhookDeduplicator deduplicator = JdbcWebhookDeduplicator.builder(dataSource)
 *         .ttl(Duration.ofHours(72))
 *         .build();
 * }</pre>
 */
public final class JdbcWebhookDeduplicator implements WebhookDeduplicator {

    /** The table's name. */
    public static final String TABLE = "received_webhooks";
    /** How many rows one purge statement deletes at most unless configured otherwise. */
    public static final int DEFAULT_PURGE_BATCH_SIZE = 1_000;

    private final JdbcDedup dedup;
    private final Duration ttl;

    private JdbcWebhookDeduplicator(Builder builder) {
        this.dedup = new JdbcDedup(builder.dataSource, builder.ttl, builder.purgeBatchSize, builder.clock);
        this.ttl = builder.ttl;
    }

    /** A de-duplicator over {@code dataSource} with the defaults (48 hours, the system clock). */
    public static JdbcWebhookDeduplicator create(DataSource dataSource) {
        return builder(dataSource).build();
    }

    /** A builder of a de-duplicator over {@code dataSource}. */
    public static Builder builder(DataSource dataSource) {
        return new Builder(dataSource);
    }

    /**
     * The DDL of the table and its index, runnable unchanged on H2 ({@code MODE=PostgreSQL}) and
     * PostgreSQL: <b>two statements</b>, each ended by {@code ;} at the end of a line, and
     * {@code --} comment lines. Both drivers accept the whole text in one
     * {@code Statement.execute}; to run them one by one use {@link #schemaStatements()}.
     */
    public static String schemaSql() {
        return SchemaScript.text();
    }

    /** The statements of {@link #schemaSql()}, in order, without comments or terminators. */
    public static List<String> schemaStatements() {
        return SchemaScript.statements();
    }

    /** How long ids are remembered. */
    public Duration ttl() {
        return ttl;
    }

    /** {@inheritDoc} One autocommit statement (two for an expired id) on a connection of its own. */
    @Override
    public boolean firstTime(String webhookId) {
        return dedup.firstTime(Ids.checkLength(webhookId));
    }

    /**
     * Records {@code webhookId} inside {@code transaction}, the caller's open transaction that
     * also holds the handler's effects; it is neither committed nor rolled back here. The id is
     * then remembered exactly when the effects are: commit keeps both, a rollback (the handler
     * failed) forgets both, with no {@link #forget} needed. On PostgreSQL a concurrent claim of
     * the same id waits until this transaction ends and then returns the right answer; hold such
     * transactions briefly.
     *
     * @throws WebhookStoreException on a database failure (the transaction should be rolled back)
     */
    public boolean firstTime(Connection transaction, String webhookId) {
        Objects.requireNonNull(transaction, "transaction");
        return dedup.firstTime(transaction, Ids.checkLength(webhookId));
    }

    @Override
    public void forget(String webhookId) {
        dedup.forget(Objects.requireNonNull(webhookId, "webhookId"));
    }

    /** Deletes the rows of expired ids, in batches; returns how many. */
    public int purgeExpired() {
        return dedup.purgeExpired();
    }

    /** Builds a {@link JdbcWebhookDeduplicator}. Not threadsafe; the built object is immutable. */
    public static final class Builder {
        private final DataSource dataSource;
        private Duration ttl = DEFAULT_TTL;
        private int purgeBatchSize = DEFAULT_PURGE_BATCH_SIZE;
        private Clock clock = Clock.systemUTC();

        private Builder(DataSource dataSource) {
            this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        }

        /** How long an id is remembered (positive, at most 366 days; default 48 hours). */
        public Builder ttl(Duration ttl) {
            this.ttl = TtlIdSet.checkTtl(ttl);
            return this;
        }

        /** How many rows one purge statement deletes at most (1 to 100000; default 1000). */
        public Builder purgeBatchSize(int purgeBatchSize) {
            if (purgeBatchSize < 1 || purgeBatchSize > 100_000) {
                throw new IllegalArgumentException("purgeBatchSize must be 1 to 100000, was " + purgeBatchSize);
            }
            this.purgeBatchSize = purgeBatchSize;
            return this;
        }

        /** The wall clock (default: the system clock). */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /** The de-duplicator. */
        public JdbcWebhookDeduplicator build() {
            return new JdbcWebhookDeduplicator(this);
        }
    }
}
