package dev.retrysafe.bench.ratelimit;

import java.util.concurrent.atomic.AtomicInteger;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;

/**
 * One benchmark thread's walk over the keys: each thread starts at its own offset and steps
 * through the shared, shuffled key array, so that with many keys the threads rarely meet on one
 * key and every library sees the same sequence. Allocates nothing per step.
 */
@State(Scope.Thread)
public class KeyCursor {

    private static final AtomicInteger THREADS = new AtomicInteger();

    private final int start = THREADS.getAndIncrement() * 7919;
    private int next = -1;

    /** The index of the next key among {@code count}. */
    int next(int count) {
        int i = next;
        if (i < 0) {
            i = start % count;
        }
        next = i + 1 == count ? 0 : i + 1;
        return i;
    }
}
