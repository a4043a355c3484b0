package dev.retrysafe.client;

import java.time.Duration;
import java.util.Objects;

/** What the client decided after an attempt: retry after a wait, or stop. Immutable and threadsafe. */
public sealed interface Decision {

    /**
     * Another attempt follows.
     *
     * @param delay how long the client waits before it (the jittered backoff, never less than a
     *     {@code Retry-After}); a pacing wait for an exhausted rate limit may come on top
     * @param reason why
     */
    record Retry(Duration delay, RetryReason reason) implements Decision {
        /** Checks the values. */
        public Retry {
            Objects.requireNonNull(reason, "reason");
            if (delay.isNegative()) {
                throw new IllegalArgumentException("delay must not be negative, was " + delay);
            }
        }
    }

    /**
     * This attempt was the last.
     *
     * @param reason why
     */
    record Stop(StopReason reason) implements Decision {
        /** Checks the value. */
        public Stop {
            Objects.requireNonNull(reason, "reason");
        }
    }
}
