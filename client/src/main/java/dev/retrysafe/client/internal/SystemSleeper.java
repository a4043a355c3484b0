package dev.retrysafe.client.internal;

import dev.retrysafe.client.Sleeper;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/** Real waiting. Stateless and threadsafe. */
public final class SystemSleeper implements Sleeper {

    /** The one instance. */
    public static final SystemSleeper INSTANCE = new SystemSleeper();

    private SystemSleeper() {}

    @Override
    public void sleep(Duration duration) throws InterruptedException {
        if (duration.isPositive()) {
            Thread.sleep(duration);
        }
    }

    @Override
    public CompletableFuture<Void> delay(Duration duration) {
        if (!duration.isPositive()) {
            return CompletableFuture.completedFuture(null);
        }
        // the delayed executor hands the completion to the common pool when the time is up;
        // no thread is held while waiting
        Executor later = CompletableFuture.delayedExecutor(duration.toNanos(), TimeUnit.NANOSECONDS);
        return CompletableFuture.runAsync(() -> {}, later);
    }
}
