package dev.retrysafe.client;

import dev.retrysafe.client.internal.SystemSleeper;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * Waits between attempts: blocking for {@link RetryingHttpClient#send synchronous} calls, without
 * holding a thread for {@link RetryingHttpClient#sendAsync asynchronous} ones. Tests inject one
 * that records the durations and returns at once (advancing a fake clock), so that no test waits
 * for real. Implementations must be threadsafe.
 */
public interface Sleeper {

    /**
     * Blocks the calling thread for {@code duration}.
     *
     * @param duration how long; zero or more
     * @throws InterruptedException if the thread is interrupted while waiting
     */
    void sleep(Duration duration) throws InterruptedException;

    /**
     * A future completed once {@code duration} has passed; it must not block the caller.
     *
     * @param duration how long; zero or more
     * @return the future, completed normally after the wait
     */
    CompletableFuture<Void> delay(Duration duration);

    /** The sleeper of real time: {@link Thread#sleep(Duration)} and a delayed executor. */
    static Sleeper system() {
        return SystemSleeper.INSTANCE;
    }
}
