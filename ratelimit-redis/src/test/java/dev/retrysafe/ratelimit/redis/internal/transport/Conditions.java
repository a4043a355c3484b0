package dev.retrysafe.ratelimit.redis.internal.transport;

import static org.assertj.core.api.Assertions.assertThat;

import dev.retrysafe.common.MonotonicClock;
import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/** Waiting in tests for a state to be reached, with a deadline, instead of sleeping. */
final class Conditions {

    private Conditions() {}

    /** Returns once {@code condition} holds, checking every millisecond; fails after {@code within}. */
    static void await(BooleanSupplier condition, Duration within) {
        long deadline = MonotonicClock.nanoTime() + within.toNanos();
        while (!condition.getAsBoolean()) {
            assertThat(MonotonicClock.nanoTime() - deadline)
                    .as("condition within %s", within)
                    .isNegative();
            LockSupport.parkNanos(Duration.ofMillis(1).toNanos());
        }
    }
}
