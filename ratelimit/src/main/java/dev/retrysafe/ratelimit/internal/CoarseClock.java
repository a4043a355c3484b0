package dev.retrysafe.ratelimit.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

/**
 * The system clock in microseconds since the epoch, read from a field that one daemon thread per
 * JVM refreshes from {@link System#currentTimeMillis()} every millisecond. Reading the clock
 * itself costs about 30 ns on a virtualized machine, more than the rest of an in-memory decision;
 * reading this field costs about one nanosecond.
 *
 * <p>Resolution stays one millisecond (what {@code currentTimeMillis} gives). Staleness is one
 * tick plus however late the ticker is scheduled: the value lags the system clock, never leads
 * it, so a decision at a stale time is a decision a little earlier, which the rate-limit
 * arithmetic tolerates (it never favours a key for an earlier time; see {@code docs/rate-limits.md}).
 *
 * <p>The ticker starts on the first read, never keeps the JVM alive (a daemon thread) and stops
 * once nothing has read the clock for about {@value #IDLE_TICKS} ticks; the next read restarts
 * it, and reads the system clock directly meanwhile. Readers write nothing on the hot path but
 * a flag once per idle period. Threadsafe.
 */
public final class CoarseClock extends CoarseClockFields {

    // Padding after the hot fields: the ticker writes them every millisecond, nothing else may share their line.
    long q0, q1, q2, q3, q4, q5, q6, q7;

    /** The thread's name, for tests and thread dumps. */
    public static final String THREAD_NAME = "retrysafe-coarse-clock";
    /** Ticks without a read after which the ticker stops: about one second. */
    static final int IDLE_TICKS = 1_000;

    private static final long TICK_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
    /** Published while no ticker runs: readers then read the system clock and start one. */
    private static final long STOPPED = Long.MIN_VALUE;

    private static final VarHandle NOW;
    private static final VarHandle READ;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            NOW = lookup.findVarHandle(CoarseClockFields.class, "now", long.class);
            READ = lookup.findVarHandle(CoarseClockFields.class, "read", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private static final CoarseClock INSTANCE = new CoarseClock();

    private final AtomicBoolean running = new AtomicBoolean();

    private CoarseClock() {
        now = STOPPED;
    }

    /** Microseconds since the epoch at millisecond resolution, at most about a tick old. */
    public static long nowMicros() {
        return INSTANCE.read();
    }

    /** Whether a ticker thread runs now (for tests). */
    static boolean ticking() {
        return INSTANCE.running.get();
    }

    private long read() {
        long t = (long) NOW.getAcquire(this);
        if (t == STOPPED) {
            return startTicker();
        }
        if (!(boolean) READ.getOpaque(this)) {
            READ.setOpaque(this, true);
        }
        return t;
    }

    private long startTicker() {
        // at most one ticker: a stopping ticker publishes STOPPED before it lets go of running;
        // until the new ticker's first tick, readers keep reading the system clock
        if (running.compareAndSet(false, true)) {
            READ.setOpaque(this, true);
            try {
                // shared by the JVM: it must not pin the first caller's thread locals or class loader
                Thread ticker = Thread.ofPlatform()
                        .daemon()
                        .name(THREAD_NAME)
                        .inheritInheritableThreadLocals(false)
                        .unstarted(this::tick);
                ticker.setContextClassLoader(null);
                ticker.start();
            } catch (Throwable e) {
                running.set(false);
                throw e;
            }
        }
        return System.currentTimeMillis() * 1000L;
    }

    private void tick() {
        int idle = 0;
        while (true) {
            long t = System.currentTimeMillis() * 1000L;
            if ((long) NOW.getOpaque(this) != t) {
                NOW.setRelease(this, t);
            }
            if (++idle >= IDLE_TICKS) {
                idle = 0;
                if (!(boolean) READ.getOpaque(this)) {
                    // nobody read for a whole period: stop; a reader racing this got a value a tick old at most
                    NOW.setRelease(this, STOPPED);
                    running.set(false);
                    return;
                }
                READ.setOpaque(this, false);
            }
            LockSupport.parkNanos(TICK_NANOS);
        }
    }
}

/** The hot fields of the clock, behind padding (see {@link CoarseClock}). */
abstract class CoarseClockFields extends CoarseClockPadding {
    long now;
    boolean read;
}

/** Padding before the hot fields. */
abstract class CoarseClockPadding {
    long p0, p1, p2, p3, p4, p5, p6, p7;
}
