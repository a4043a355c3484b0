package dev.retrysafe.liveevents.internal;

import dev.retrysafe.common.MonotonicClock;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;

/**
 * A warning logged at most once per {@link #EVERY}, for failures that repeat while they last (a
 * database that stays unreachable must not fill the log with one line per attempt). Threadsafe.
 */
final class SparseWarning {

    /** Least time between two warnings. */
    static final Duration EVERY = Duration.ofSeconds(10);

    private final Logger log;
    private final AtomicLong last = new AtomicLong(MonotonicClock.nanoTime() - EVERY.toNanos());

    /** Warnings to {@code log}. */
    SparseWarning(Logger log) {
        this.log = log;
    }

    /** Logs {@code format} with {@code args} unless a warning was logged less than {@link #EVERY} ago. */
    void warn(String format, Object... args) {
        long now = MonotonicClock.nanoTime();
        long before = last.get();
        if (now - before >= EVERY.toNanos() && last.compareAndSet(before, now)) {
            log.warn(format, args);
        }
    }
}
