package dev.retrysafe.delivery;

import dev.retrysafe.delivery.AttemptResult.Outcome;
import java.time.Instant;
import java.util.OptionalDouble;
import org.jspecify.annotations.Nullable;

/**
 * How an endpoint's recent attempts went: the attempts that started in a window (such as the last
 * 24 hours), how many succeeded, and the newest one. Immutable and threadsafe.
 *
 * @param attempts      attempts that started in the window
 * @param succeeded     of those, the ones answered {@code 2xx}
 * @param lastAttemptAt when the newest of them started; {@code null} when there were none
 * @param lastOutcome   the newest one's outcome; {@code null} when there were none
 */
public record EndpointHealth(
        long attempts,
        long succeeded,
        @Nullable Instant lastAttemptAt,
        @Nullable Outcome lastOutcome) {

    /** No attempt in the window. */
    public static final EndpointHealth NONE = new EndpointHealth(0, 0, null, null);

    /** Checks that the counts and the newest attempt agree. */
    public EndpointHealth {
        if (attempts < 0 || succeeded < 0 || succeeded > attempts) {
            throw new IllegalArgumentException(
                    "need 0 <= succeeded <= attempts: succeeded=" + succeeded + ", attempts=" + attempts);
        }
        if ((attempts == 0) != (lastAttemptAt == null) || (lastAttemptAt == null) != (lastOutcome == null)) {
            throw new IllegalArgumentException("lastAttemptAt and lastOutcome go with attempts > 0 only: attempts="
                    + attempts + ", lastAttemptAt=" + lastAttemptAt + ", lastOutcome=" + lastOutcome);
        }
    }

    /** {@code succeeded / attempts}, empty when there were no attempts. */
    public OptionalDouble successRate() {
        return attempts == 0 ? OptionalDouble.empty() : OptionalDouble.of((double) succeeded / attempts);
    }
}
