package dev.retrysafe.spring.internal;

import java.time.Duration;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * A value read at most once per {@code ttl} (monotonic time), so that the gauges of one scrape
 * that come from one database query run that query once. Threadsafe.
 *
 * @param <T> the value
 */
final class Memo<T> implements Supplier<T> {

    private final Supplier<T> source;
    private final long ttlNanos;
    private @Nullable T value;
    private long readAt;

    Memo(Supplier<T> source, Duration ttl) {
        this.source = source;
        this.ttlNanos = ttl.toNanos();
    }

    @Override
    public synchronized T get() {
        long now = System.nanoTime();
        T current = value;
        if (current == null || now - readAt >= ttlNanos) {
            current = source.get();
            value = current;
            readAt = now;
        }
        return current;
    }
}
