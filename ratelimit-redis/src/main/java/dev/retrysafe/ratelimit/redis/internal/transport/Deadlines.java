package dev.retrysafe.ratelimit.redis.internal.transport;

import dev.retrysafe.common.MonotonicClock;
import java.time.Duration;
import java.util.Iterator;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.LockSupport;

/**
 * Ends what is not done by its deadline, so that the threads waiting for it can wait without a
 * timeout of their own. A virtual thread that waits with a timeout has a timer task scheduled and
 * cancelled around every wait (on JDK 25 a task of ForkJoinPool's delay scheduler, whose thread is
 * woken to take it and again to drop it; on JDK 21 one of a shared scheduled executor), and at
 * tens of thousands of decisions a second that cost about a quarter of the store's throughput at
 * 16 virtual-thread callers, the server's kind (bench/ratelimit/HISTORY.md, "callers on virtual
 * threads"). One daemon thread here watches everything tracked
 * instead: it wakes at the earliest deadline, and while anything is outstanding at least every
 * {@link #PRUNE_EVERY}, to forget what is done; with nothing outstanding it sleeps until something
 * is tracked. A deadline is kept to within the thread's wake-up latency.
 *
 * <p>After {@link #close} the thread goes on until everything already tracked is done or
 * expired, so no waiter is left without its deadline; then it ends. Threadsafe.
 */
final class Deadlines implements AutoCloseable {

    /** Something a thread waits for, with a deadline. */
    interface Expiring {
        /** In {@link MonotonicClock#nanoTime()} terms. */
        long deadline();

        boolean isDone();

        /** Ends it as timed out (called at most once, by the deadlines' thread; may find it done meanwhile). */
        void expire();
    }

    /** While anything is outstanding, how long the thread may sleep at most, so that what is done is dropped soon. */
    static final Duration PRUNE_EVERY = Duration.ofMillis(10);

    private static final long PRUNE_NANOS = PRUNE_EVERY.toNanos();
    /** Farther than any deadline: the thread's wake-up time while it scans, or while nothing is outstanding. */
    private static final long FAR = Long.MAX_VALUE >> 2;

    private static final System.Logger LOG = System.getLogger(Deadlines.class.getName());

    private final ConcurrentLinkedQueue<Expiring> tracked = new ConcurrentLinkedQueue<>();
    /**
     * When the thread means to wake next; what is tracked with an earlier deadline wakes it. While
     * it scans, {@link #FAR} ahead: whatever is tracked then wakes it again, as the scan may have
     * passed it.
     */
    private volatile long wakeAt = MonotonicClock.nanoTime() + FAR;

    private volatile boolean closed;
    private final Thread thread;

    /** Starts the thread, a daemon named {@code name}. */
    public Deadlines(String name) {
        thread = Thread.ofPlatform().daemon().name(name).unstarted(this::run);
        thread.start();
    }

    /** Watches {@code e} until it is done, expiring it at its deadline if it is not. */
    void track(Expiring e) {
        tracked.add(e);
        if (e.deadline() - wakeAt < 0) {
            LockSupport.unpark(thread);
        }
    }

    /** How many are tracked and not yet dropped (for tests). */
    int tracked() {
        return tracked.size();
    }

    /** Whether the thread has ended (for tests). */
    boolean ended() {
        return !thread.isAlive();
    }

    private void run() {
        while (!(closed && tracked.isEmpty())) {
            try {
                wakeAt = MonotonicClock.nanoTime() + FAR;
                long now = MonotonicClock.nanoTime();
                long next = now + FAR;
                for (Iterator<Expiring> it = tracked.iterator(); it.hasNext(); ) {
                    Expiring e = it.next();
                    if (e.isDone()) {
                        it.remove();
                    } else if (e.deadline() - now <= 0) {
                        it.remove();
                        e.expire();
                    } else {
                        next = Math.min(next - now, Math.min(e.deadline() - now, PRUNE_NANOS)) + now;
                    }
                }
                if (closed && tracked.isEmpty()) {
                    return;
                }
                wakeAt = next;
                LockSupport.parkNanos(this, next - MonotonicClock.nanoTime());
            } catch (RuntimeException | Error e) {
                // never seen; the thread must outlive it, or waiters would wait past their deadlines
                LOG.log(System.Logger.Level.ERROR, "rate-limit deadlines: " + e, e);
            }
        }
    }

    /** Lets the thread end once nothing tracked is outstanding. */
    @Override
    public void close() {
        closed = true;
        LockSupport.unpark(thread);
    }
}
