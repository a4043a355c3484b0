package dev.retrysafe.spring.internal;

import dev.retrysafe.webhooks.JdbcWebhookDeduplicator;
import dev.retrysafe.webhooks.WebhookDeduplicator;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.context.SmartLifecycle;

/**
 * Deletes expired ids from the {@code received_webhooks} table every {@code interval} (when the
 * de-duplicator is the JDBC one; otherwise it does nothing), so the
 * table holds about one TTL's worth of deliveries. Any instance may purge; deletes of the same
 * expired rows by two instances are harmless. A failed purge is logged and tried at the next
 * interval. Threadsafe.
 */
public final class ReceivedWebhooksPurge implements SmartLifecycle {

    private static final Log LOG = LogFactory.getLog(ReceivedWebhooksPurge.class);

    private final @Nullable JdbcWebhookDeduplicator deduplicator;
    private final Duration interval;
    private @Nullable ScheduledExecutorService timer;

    /** Purges {@code deduplicator}'s table every {@code interval}. */
    public ReceivedWebhooksPurge(WebhookDeduplicator deduplicator, Duration interval) {
        Objects.requireNonNull(deduplicator, "deduplicator");
        this.deduplicator = deduplicator instanceof JdbcWebhookDeduplicator jdbc ? jdbc : null;
        if (!interval.isPositive()) {
            throw new IllegalArgumentException(
                    "retrysafe.webhooks.in.purge-interval must be positive, was " + interval);
        }
        this.interval = interval;
    }

    @Override
    public synchronized void start() {
        if (timer == null && deduplicator != null) {
            ScheduledExecutorService started = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform()
                    .daemon()
                    .name("retrysafe-received-webhooks-purge")
                    .factory());
            started.scheduleWithFixedDelay(
                    this::purge, interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS);
            timer = started;
        }
    }

    /** One purge now; returns the rows deleted (0 when the database failed, which is logged). */
    public int purge() {
        if (deduplicator == null) {
            return 0;
        }
        try {
            return deduplicator.purgeExpired();
        } catch (RuntimeException e) {
            LOG.warn("purging expired received webhook ids failed; trying again in " + interval, e);
            return 0;
        }
    }

    @Override
    public synchronized void stop() {
        if (timer != null) {
            timer.shutdownNow();
            timer = null;
        }
    }

    @Override
    public synchronized boolean isRunning() {
        return timer != null;
    }
}
