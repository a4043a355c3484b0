package dev.retrysafe.spring.internal;

import dev.retrysafe.idempotency.IdempotencyStore;
import java.lang.System.Logger.Level;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.springframework.context.SmartLifecycle;

/**
 * Deletes idempotency keys older than their time to live, every {@code interval}, on a daemon
 * thread of its own, while the application runs. Threadsafe.
 */
public final class KeyPurger implements SmartLifecycle {

    private static final System.Logger LOG = System.getLogger("dev.retrysafe.spring");

    private final IdempotencyStore store;
    private final Duration ttl;
    private final Duration interval;
    private final Clock clock;
    private @Nullable ScheduledExecutorService scheduler;

    /** Purges {@code store} of keys older than {@code ttl} every {@code interval} (zero: never). */
    public KeyPurger(IdempotencyStore store, Duration ttl, Duration interval, Clock clock) {
        this.store = store;
        this.ttl = ttl;
        this.interval = interval;
        this.clock = clock;
    }

    /** Deletes the keys older than the time to live now; how many. */
    public int purgeNow() {
        return store.purge(clock.instant().minus(ttl));
    }

    @Override
    public synchronized void start() {
        if (scheduler != null || interval.isZero() || interval.isNegative()) {
            return;
        }
        ScheduledExecutorService started = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "retrysafe-key-purge");
            thread.setDaemon(true);
            return thread;
        });
        started.scheduleWithFixedDelay(
                this::purgeQuietly, interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS);
        scheduler = started;
    }

    private void purgeQuietly() {
        try {
            purgeNow();
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "purging expired idempotency keys failed; the next run tries again", e);
        }
    }

    @Override
    public synchronized void stop() {
        if (scheduler != null) {
            scheduler.shutdownNow();
            scheduler = null;
        }
    }

    @Override
    public synchronized boolean isRunning() {
        return scheduler != null;
    }
}
