package dev.retrysafe.servlet.internal;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The bytes that all request bodies being read or held may take together: a body's buffer may
 * only grow by what this budget grants, so that many clients sending at once cost a bounded
 * amount of memory. Threadsafe.
 */
public final class BufferBudget {

    private final long limit;
    private final AtomicLong used = new AtomicLong();

    /** A budget of {@code limit} bytes. */
    public BufferBudget(long limit) {
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be at least 1 byte: " + limit);
        }
        this.limit = limit;
    }

    /** Takes {@code bytes} if they fit; whether they did. */
    boolean tryTake(long bytes) {
        long now;
        do {
            now = used.get();
            if (now + bytes > limit) {
                return false;
            }
        } while (!used.compareAndSet(now, now + bytes));
        return true;
    }

    /** Gives back {@code bytes} taken earlier. */
    void giveBack(long bytes) {
        used.addAndGet(-bytes);
    }

    /** Whether nothing is left: a new body cannot even start. */
    boolean exhausted() {
        return used.get() >= limit;
    }

    /** The bytes taken now, for metrics and tests. */
    public long used() {
        return used.get();
    }

    /** The most that may be taken. */
    public long limit() {
        return limit;
    }
}
