package dev.retrysafe.delivery;

import dev.retrysafe.delivery.AttemptResult.Outcome;
import java.time.Instant;
import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;

/**
 * The attempts that started in one hour, counted by outcome. Immutable and threadsafe.
 *
 * @param start  the start of the hour (a whole UTC hour)
 * @param counts attempts per outcome; outcomes without attempts are absent
 */
public record AttemptBucket(Instant start, Map<Outcome, Long> counts) {

    /** Checks presence and copies the counts, which must be positive. */
    public AttemptBucket {
        Objects.requireNonNull(start, "start");
        EnumMap<Outcome, Long> copy = new EnumMap<>(Outcome.class);
        counts.forEach((outcome, n) -> {
            if (n <= 0) {
                throw new IllegalArgumentException("counts must be positive: " + outcome + "=" + n);
            }
            copy.put(outcome, n);
        });
        counts = Collections.unmodifiableMap(copy);
    }

    /** Attempts of every outcome. */
    public long total() {
        return counts.values().stream().mapToLong(Long::longValue).sum();
    }
}
