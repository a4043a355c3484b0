package dev.retrysafe.spring.internal;

import dev.retrysafe.delivery.Dispatcher;
import java.util.Objects;
import org.springframework.context.SmartLifecycle;

/**
 * Runs a {@link Dispatcher} with the application context: started on refresh, closed gracefully
 * (claimed deliveries handed back, attempts in flight given the shutdown timeout) when the
 * context stops. Its phase starts it before the web server and stops it after, so requests still
 * being answered can publish. Threadsafe.
 */
public final class DispatcherLifecycle implements SmartLifecycle {

    /** Before the web server's phases, so it stops after them. */
    public static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 4096;

    private final Dispatcher dispatcher;
    private final boolean autoStart;
    private volatile boolean running;

    /** The lifecycle of {@code dispatcher}; with {@code autoStart} false it starts only when asked. */
    public DispatcherLifecycle(Dispatcher dispatcher, boolean autoStart) {
        this.dispatcher = Objects.requireNonNull(dispatcher, "dispatcher");
        this.autoStart = autoStart;
    }

    @Override
    public synchronized void start() {
        if (!running) {
            dispatcher.start();
            running = true;
        }
    }

    @Override
    public synchronized void stop() {
        if (running) {
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
