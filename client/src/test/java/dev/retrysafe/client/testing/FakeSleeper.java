package dev.retrysafe.client.testing;

import dev.retrysafe.client.Sleeper;
import dev.retrysafe.testkit.FakeClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A sleeper that waits for nothing: it records each wait and moves the fake clock by it, so a
 * test of a one-second {@code Retry-After} takes no second. Threadsafe.
 */
public final class FakeSleeper implements Sleeper {

    private final FakeClock clock;
    private final List<Duration> waits = new ArrayList<>();

    public FakeSleeper(FakeClock clock) {
        this.clock = clock;
    }

    @Override
    public void sleep(Duration duration) {
        record(duration);
    }

    @Override
    public CompletableFuture<Void> delay(Duration duration) {
        record(duration);
        return CompletableFuture.completedFuture(null);
    }

    private synchronized void record(Duration duration) {
        if (duration.isNegative()) {
            throw new AssertionError("asked to sleep a negative duration: " + duration);
        }
        if (duration.isPositive()) {
            waits.add(duration);
            clock.advance(duration);
        }
    }

    /** Every positive wait so far, in order. */
    public synchronized List<Duration> waits() {
        return List.copyOf(waits);
    }

    /** The sum of all waits. */
    public synchronized Duration total() {
        return waits.stream().reduce(Duration.ZERO, Duration::plus);
    }
}
