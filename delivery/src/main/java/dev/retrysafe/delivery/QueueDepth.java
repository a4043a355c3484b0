package dev.retrysafe.delivery;

/**
 * How many deliveries wait, at one moment, over all accounts. Immutable and threadsafe.
 *
 * @param due        pending and due now (the backlog the dispatchers have not caught up with)
 * @param scheduled  pending with their next attempt in the future
 * @param delivering claimed, an attempt under way (or a dead instance's claim not yet taken over)
 */
public record QueueDepth(long due, long scheduled, long delivering) {

    /** Checks the counts. */
    public QueueDepth {
        if (due < 0 || scheduled < 0 || delivering < 0) {
            throw new IllegalArgumentException(
                    "counts must not be negative: " + due + ", " + scheduled + ", " + delivering);
        }
    }
}
