package dev.retrysafe.spring.internal;

import dev.retrysafe.delivery.DeliveryRetention;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * {@code retrysafe.webhooks.out.retention} in every instance that runs a dispatcher: once a minute,
 * the delivery module's {@link DeliveryRetention} purge (attempts started, and finished deliveries
 * created, before {@code now - retention}), in its batches of short transactions, so the
 * dispatcher's claims never wait behind it. The starter keeps no event rows of its own (an
 * event's payload lives in its deliveries), so there is nothing else to purge. Instances need not
 * take turns: each batch deletes by primary key what is still there. Started and stopped by the
 * {@link DispatcherLifecycle}. A failed purge is logged and the next run tries again. Threadsafe.
 */
public final class DeliveryLogPurge {

    /** How often a purge runs, as in the Retrysafe server. */
    public static final Duration EVERY = Duration.ofMinutes(1);

    private static final Log LOG = LogFactory.getLog(DeliveryLogPurge.class);

    private final DeliveryRetention retention;
    private @Nullable ScheduledExecutorService timer;

    /**
     * A purge of the delivery log on {@code dataSource} keeping {@code retention}, its cutoff read
     * from {@code clock}.
     *
     * @throws IllegalArgumentException if {@code retention} is not positive, or under the delivery
     *     module's floor of one hour
     */
    public DeliveryLogPurge(DataSource dataSource, Duration retention, Clock clock) {
        Objects.requireNonNull(retention, "retention");
        if (!retention.isPositive()) {
            throw new IllegalArgumentException("retrysafe.webhooks.out.retention must be positive, was " + retention);
        }
        if (retention.compareTo(Duration.ofHours(1)) < 0) {
            throw new IllegalArgumentException(
                    "retrysafe.webhooks.out.retention must be at least 1h (the delivery log's floor), was "
                            + retention);
        }
        this.retention = DeliveryRetention.builder(dataSource)
                .clock(clock)
                .retention(retention)
                .batchSize(DeliveryRetention.DEFAULT_BATCH_SIZE)
                .build();
    }

    /** How long the delivery log is kept. */
    public Duration retention() {
        return retention.retention();
    }

    /**
     * One purge now, batch by batch until nothing older than the retention is left.
     *
     * @throws InterruptedException if the thread is interrupted between batches
     * @throws dev.retrysafe.delivery.DeliveryStoreException if the database fails
     */
    public DeliveryRetention.Purged purge() throws InterruptedException {
        DeliveryRetention.Purged purged = retention.purge();
        if (purged.attempts() + purged.deliveries() > 0) {
            LOG.info("purged " + purged.attempts() + " delivery attempts and " + purged.deliveries()
                    + " deliveries older than " + retention.retention());
        }
        return purged;
    }

    /** Purges every {@link #EVERY}, the first time one period from now; does nothing if running. */
    synchronized void start() {
        if (timer == null) {
            ScheduledExecutorService started = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform()
                    .daemon()
                    .name("retrysafe-webhook-retention")
                    .factory());
            started.scheduleWithFixedDelay(this::runOnce, EVERY.toMillis(), EVERY.toMillis(), TimeUnit.MILLISECONDS);
            timer = started;
        }
    }

    /** Stops the schedule, interrupting a purge under way (what it committed stays deleted). */
    synchronized void stop() {
        if (timer != null) {
            timer.shutdownNow();
            timer = null;
        }
    }

    /** Whether the schedule runs. */
    public synchronized boolean isRunning() {
        return timer != null;
    }

    private void runOnce() {
        try {
            purge();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            // a failed purge only delays deletion
            LOG.warn("webhook retention purge failed; trying again in " + EVERY + ": " + e);
        }
    }
}
