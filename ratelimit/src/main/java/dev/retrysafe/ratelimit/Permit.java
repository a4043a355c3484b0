package dev.retrysafe.ratelimit;

import java.util.List;

/**
 * The slots one admitted request holds under its concurrency limits, until {@link #release()}.
 * A shared store renews their leases while the permit is held. Threadsafe: the request's thread
 * and an asynchronous completion may both release it, and only the first release counts.
 */
public interface Permit {

    /** The slots this permit was given, in the order asked for (none when nothing applied). */
    List<ConcurrencySlot> slots();

    /**
     * Gives every slot back, at most once however often it is called. Never throws: a slot a
     * shared store could not be told about comes back when its lease runs out.
     */
    void release();

    /** A permit that holds nothing (no limit applied, or the store failed open): release does nothing. */
    static Permit none(List<ConcurrencySlot> slots) {
        List<ConcurrencySlot> copy = List.copyOf(slots);
        return new Permit() {
            @Override
            public List<ConcurrencySlot> slots() {
                return copy;
            }

            @Override
            public void release() {}
        };
    }
}
