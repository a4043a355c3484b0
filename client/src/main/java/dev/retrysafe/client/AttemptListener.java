package dev.retrysafe.client;

/**
 * Told about every attempt once the client has decided what follows it: for logs and metrics.
 * Called on the thread that ran the attempt; keep it short. An exception it throws is logged
 * ({@link System.Logger}) and otherwise ignored: a listener never changes the outcome of a call.
 * Implementations must be threadsafe when the client is shared.
 */
@FunctionalInterface
public interface AttemptListener {

    /**
     * Called after each attempt, the last one included.
     *
     * @param attempt what happened and what follows
     */
    void onAttempt(Attempt attempt);
}
