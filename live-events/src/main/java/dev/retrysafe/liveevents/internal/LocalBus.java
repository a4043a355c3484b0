package dev.retrysafe.liveevents.internal;

import java.util.function.Consumer;

/**
 * The bus of the embedded mode: one process, so a signal only needs to reach this instance's
 * feed. (Several instances on one H2 server file would still see each other's events, through
 * the feed's poll, within {@code poll_interval}.) Threadsafe.
 */
final class LocalBus implements Bus {

    private final Consumer<Signal> local;
    private volatile boolean closed;

    LocalBus(Consumer<Signal> local) {
        this.local = local;
    }

    @Override
    public void publish(Signal signal) {
        if (!closed) {
            local.accept(signal);
        }
    }

    @Override
    public void close() {
        closed = true;
    }
}
