package dev.retrysafe.ratelimit.redis.internal.transport;

import dev.retrysafe.common.MonotonicClock;
import java.time.Duration;

/**
 * How long a thread waiting for a reply on the direct connection polls its socket before it
 * blocks in a read. A thread blocked in a read is woken by the kernel when the reply arrives, and
 * on the virtual machines measured that wake-up was about half of a lone decision's round trip to
 * a Redis on the same host (bench/ratelimit/HISTORY.md); polling for a reply that comes within the limit
 * skips it, at the price of a core busy for that long. Only one thread at a time uses the
 * connection, and only while no shared call is under way, so at most one core polls per store.
 *
 * <p>Polling is paused when it does not pay: after {@value #MISSES_TO_PAUSE} waits in a row whose
 * reply did not come within the limit (a Redis farther away, or loaded), no thread polls for
 * {@link #PAUSE}, then polling is tried again. Never polls on a single processor, where the
 * poller would take the core the reply is computed or delivered on.
 *
 * <p>Not threadsafe: used by the one thread holding the connection.
 */
final class SpinWait {

    /** The default limit. */
    public static final Duration DEFAULT_LIMIT = Duration.ofNanos(100_000);
    /** The largest limit accepted. */
    public static final Duration MAX_LIMIT = Duration.ofMillis(10);
    /** Waits in a row not answered within the limit after which polling pauses. */
    static final int MISSES_TO_PAUSE = 8;
    /** How long polling pauses. */
    static final Duration PAUSE = Duration.ofSeconds(1);

    private final long limitNanos;
    private int misses;
    private boolean paused;
    private long pausedUntil;

    /**
     * Polling for at most {@code limit} (zero: never) on a machine of {@code processors}
     * processors.
     */
    SpinWait(Duration limit, int processors) {
        if (limit.isNegative() || limit.compareTo(MAX_LIMIT) > 0) {
            throw new IllegalArgumentException("the spin limit must be between 0 and " + MAX_LIMIT + ": " + limit);
        }
        this.limitNanos = processors > 1 ? limit.toNanos() : 0;
    }

    /** Polling for at most {@code limit} on this machine. */
    static SpinWait of(Duration limit) {
        return new SpinWait(limit, Runtime.getRuntime().availableProcessors());
    }

    /**
     * Until when (in {@link MonotonicClock#nanoTime()} terms) to poll for a reply awaited from {@code now}
     * and due by {@code deadline}: {@code now} itself when not polling.
     */
    long pollUntil(long now, long deadline) {
        if (limitNanos == 0) {
            return now;
        }
        if (paused) {
            if (now - pausedUntil < 0) {
                return now;
            }
            paused = false;
        }
        long until = now + limitNanos;
        return until - deadline > 0 ? deadline : until;
    }

    /** Records how a poll ended at {@code now}: {@code answered} when the reply began to arrive within it. */
    void polled(boolean answered, long now) {
        if (answered) {
            misses = 0;
        } else if (++misses >= MISSES_TO_PAUSE) {
            misses = 0;
            paused = true;
            pausedUntil = now + PAUSE.toNanos();
        }
    }
}
