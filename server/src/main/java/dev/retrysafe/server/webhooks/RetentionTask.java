package dev.retrysafe.server.webhooks;

import dev.retrysafe.delivery.DeliveryRetention;
import dev.retrysafe.server.db.Transactions;
import dev.retrysafe.server.events.EventRetention;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code webhooks.retention} in every instance: once a minute, the delivery module's purge (old
 * attempts, old finished deliveries, unused ordering keys) and then the events that have no
 * delivery left, each in
 * small batches of short transactions. Instances need not take turns: each batch deletes by
 * primary key what is still there. Threadsafe.
 */
public final class RetentionTask implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(RetentionTask.class);

    /** How often a purge runs. */
    static final Duration EVERY = Duration.ofMinutes(1);

    private final DeliveryRetention deliveries;
    private final EventRetention events;
    private final Clock clock;
    private final ScheduledExecutorService executor;

    RetentionTask(DataSource dataSource, Duration retention, Clock clock) {
        this.deliveries = DeliveryRetention.builder(dataSource)
                .clock(clock)
                .retention(retention)
                .build();
        this.events = new EventRetention(new Transactions(dataSource), DeliveryRetention.DEFAULT_BATCH_SIZE);
        this.clock = clock;
        this.executor = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "retrysafe-webhook-retention");
            t.setDaemon(true);
            return t;
        });
    }

    /** Purges every {@link #EVERY}, the first time one period after this call. */
    void start() {
        executor.scheduleWithFixedDelay(this::runOnce, EVERY.toMillis(), EVERY.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** One purge; a failure is logged and the next run tries again. */
    void runOnce() {
        try {
            purge();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (SQLException | RuntimeException e) {
            // a failed purge only delays deletion
            LOG.warn("webhook retention purge failed: {}", e.toString());
        }
    }

    /** What one purge deleted. */
    record Purged(long attempts, long deliveries, long events) {}

    /** Deletes what is older than the retention: attempts and finished deliveries, then events. */
    Purged purge() throws SQLException, InterruptedException {
        DeliveryRetention.Purged purged = deliveries.purge();
        long eventCount = events.purge(clock.instant().minus(deliveries.retention()));
        if (purged.attempts() + purged.deliveries() + purged.orderingKeys() + eventCount > 0) {
            LOG.info(
                    "purged {} delivery attempts, {} deliveries and {} events older than {}, and {} unused ordering keys",
                    purged.attempts(),
                    purged.deliveries(),
                    eventCount,
                    deliveries.retention(),
                    purged.orderingKeys());
        }
        return new Purged(purged.attempts(), purged.deliveries(), eventCount);
    }

    @Override
    public void close() {
        executor.shutdownNow();
    }
}
