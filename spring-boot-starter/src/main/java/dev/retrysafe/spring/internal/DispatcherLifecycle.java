package dev.retrysafe.spring.internal;

import dev.retrysafe.delivery.Dispatcher;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.springframework.context.SmartLifecycle;

/**
 * Runs a {@link Dispatcher} with the application context: started on refresh, closed gracefully
 * (claimed deliveries handed back, attempts in flight given the shutdown timeout) when the
 * context stops. Its phase starts it before the web server and stops it after, so requests still
 * being answered can publish. The retention purge of the delivery log, if given, runs exactly while
 * the dispatcher does. Threadsafe.
 */
public final class DispatcherLifecycle implements SmartLifecycle {

    /** Before the web server's phases, so it stops after them. */
    public static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 4096;

    private final Dispatcher dispatcher;
    private final boolean autoStart;
    private final @Nullable DeliveryLogPurge purge;
    private volatile boolean running;

    /** The lifecycle of {@code dispatcher}; with {@code autoStart} false it starts only when asked. */
    public DispatcherLifecycle(Dispatcher dispatcher, boolean autoStart) {
        this(dispatcher, autoStart, null);
    }

    /** As {@link #DispatcherLifecycle(Dispatcher, boolean)}, running {@code purge} (if not null) alongside. */
    public DispatcherLifecycle(Dispatcher dispatcher, boolean autoStart, @Nullable DeliveryLogPurge purge) {
        this.dispatcher = Objects.requireNonNull(dispatcher, "dispatcher");
        this.autoStart = autoStart;
        this.purge = purge;
    }

    @Override
    public synchronized void start() {
        if (!running) {
            dispatcher.start();
            if (purge != null) {
                purge.start();
            }
            running = true;
        }
    }

    @Override
    public synchronized void stop() {
        if (running) {
            if (purge != null) {
                purge.stop();
            }
            dispatcher.close();
            running = false;
        }
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    @Override
    public boolean isAutoStartup() {
        return autoStart;
    }

    @Override
    public int getPhase() {
        return PHASE;
    }
}
