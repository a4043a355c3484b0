package dev.retrysafe.delivery;

import dev.retrysafe.delivery.internal.Purger;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * Bounds how long the delivery log is kept: {@link #purge()} deletes what is older than the
 * retention, in small batches of short transactions that never hold up the dispatcher.
 *
 * <p>What "older" means, exactly, with {@code cutoff = clock.now() - retention}:
 * <ul>
 *   <li>an attempt whose start is before the cutoff is deleted, whatever its delivery's state (an
 *       attempt is a log line; its delivery keeps its own counters);
 *   <li>a delivery created before the cutoff is deleted once it is finished (succeeded or failed),
 *       with any attempts left; one still pending or being attempted is never deleted, and goes
 *       in a later purge once it is finished. A held one (its endpoint is paused, or it waits for
 *       the head of its ordering key) is unfinished too;
 *   <li>the numbering of an ordering key of an ordered endpoint (one small row per key) is
 *       forgotten once no delivery of that key to that endpoint is left, of whatever age or state;
 *       a later event of the key starts it again, as the key's first. A key that a fan-out is
 *       numbering at that moment (its transaction still open) is passed over, for a later purge.
 * </ul>
 * A row created exactly at the cutoff stays. {@code GET} of a purged delivery finds nothing, as
 * for an id that never existed. Events are the caller's (the server purges its own after these:
 * an event with no delivery left).
 *
 * <p>Any number of instances may purge at once: each batch deletes by primary key what is still
 * there, so a row purged twice is only not found the second time. Threadsafe.
 *
 * <pre>{@code
 * DeliveryRetention retention = DeliveryRetention.builder(dataSource).retention(Duration.ofDays(30)).build();
 * retention.purge(); // from a scheduled task
 * }</pre>
 */
public final class DeliveryRetention {

    /** How long deliveries and attempts are kept unless configured otherwise. */
    public static final Duration DEFAULT_RETENTION = Duration.ofDays(30);
    /** Rows of one table deleted per transaction unless configured otherwise. */
    public static final int DEFAULT_BATCH_SIZE = 500;

    private final Clock clock;
    private final Duration retention;
    private final Purger purger;

    private DeliveryRetention(Builder b) {
        this.clock = b.clock;
        this.retention = b.retention;
        this.purger = new Purger(b.dataSource, b.batchSize, b.hook);
    }

    /** A builder over {@code dataSource} (tables of {@link DeliverySchema}). */
    public static Builder builder(DataSource dataSource) {
        return new Builder(dataSource);
    }

    /** How long rows are kept. */
    public Duration retention() {
        return retention;
    }

    /**
     * Deletes everything older than the retention (see the class), batch by batch until nothing
     * older is left.
     *
     * @return how many attempts, deliveries and ordering keys were deleted
     * @throws InterruptedException if the thread is interrupted between batches
     * @throws DeliveryStoreException if the database fails (what was committed stays deleted)
     */
    public Purged purge() throws InterruptedException {
        Purger.Counts counts = purger.purge(clock.millis() - retention.toMillis());
        return new Purged(counts.attempts(), counts.deliveries(), counts.orderingKeys());
    }

    /**
     * What one {@link #purge()} deleted.
     *
     * @param attempts   attempts deleted one by one (the attempts of deleted deliveries go with them, uncounted)
     * @param deliveries deliveries deleted
     * @param orderingKeys ordering keys forgotten (see the class)
     */
    public record Purged(long attempts, long deliveries, long orderingKeys) {}

    /** Builds a {@link DeliveryRetention}. Not threadsafe. */
    public static final class Builder {
        private final DataSource dataSource;
        private Clock clock = Clock.systemUTC();
        private Duration retention = DEFAULT_RETENTION;
        private int batchSize = DEFAULT_BATCH_SIZE;
        private Purger.BatchHook hook = table -> {};

        private Builder(DataSource dataSource) {
            this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        }

        /** The wall clock the cutoff is read from (the dispatcher's). */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /** How long rows are kept: at least 1 hour. */
        public Builder retention(Duration retention) {
            Objects.requireNonNull(retention, "retention");
            if (retention.compareTo(Duration.ofHours(1)) < 0) {
                throw new IllegalArgumentException("retention must be at least 1h, was " + retention);
            }
            this.retention = retention;
            return this;
        }

        /** Rows of one table deleted per transaction, 1 to 10000. */
        public Builder batchSize(int batchSize) {
            if (batchSize < 1 || batchSize > 10_000) {
                throw new IllegalArgumentException("batchSize must be 1 to 10000, was " + batchSize);
            }
            this.batchSize = batchSize;
            return this;
        }

        /** Runs {@code hook} in each batch's transaction before it commits (tests only). */
        Builder beforeCommit(Purger.BatchHook hook) {
            this.hook = Objects.requireNonNull(hook, "hook");
            return this;
        }

        /** The retention. */
        public DeliveryRetention build() {
            return new DeliveryRetention(this);
        }
    }
}
