package dev.retrysafe.delivery;

/**
 * Told of every attempt this dispatcher made, once its outcome is stored (committed), for live
 * views of deliveries. Attempts made by other instances are told there. It runs on the attempt's
 * virtual thread outside any transaction: it must return quickly, and what it throws is logged and
 * otherwise ignored. Implementations must be threadsafe.
 */
@FunctionalInterface
public interface AttemptObserver {

    /**
     * An attempt was made and its outcome committed.
     *
     * @param attempt the attempt and where its delivery stands now
     */
    void stored(StoredAttempt attempt);
}
