package dev.retrysafe.leasedwork.internal;

import java.util.List;

/**
 * What a module tells the {@link WorkLoop} about its leased work: how to claim due rows, what to
 * do with one claim, and how to give claims up when the loop closes. The loop calls
 * {@link #claim} from one thread at a time, {@link #run} on a worker thread of its own per claim.
 * Implementations are threadsafe.
 *
 * @param <C> one claimed unit of work
 */
public interface LeasedWork<C> {

    /**
     * What one claim took, and whether due work was left for lack of room (workers, per-target
     * caps, rate slots, the batch size): then a worker's end wakes the loop early.
     */
    record Claims<C>(List<C> claimed, boolean heldBack) {
        /** Copies the list. */
        public Claims {
            claimed = List.copyOf(claimed);
        }
    }

    /**
     * Claims at most {@code room} due units with a lease (room may be 0 when
     * {@link WorkLoop.Rhythm#ROUNDS} asks for a round's upkeep alone).
     */
    Claims<C> claim(int room);

    /** Told on the loop's thread before {@code claim}'s worker starts, so its start comes before its end. */
    default void starting(C claim) {}

    /** Does the work of {@code claim}, on its worker thread; what it throws is logged. */
    void run(C claim);

    /**
     * Close's last resort: the shutdown timeout passed with {@code stillRunning} unfinished. Take
     * them away from their workers (interrupt, hand claims back) or leave them to their leases.
     */
    void abandon(List<WorkLoop.Worker<C>> stillRunning);

    /** Told once, at the end of {@code close()}, to release what the work holds. */
    default void closed() {}
}
