package dev.retrysafe.delivery;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * A snapshot of a latency distribution: count, total, largest, and a small histogram. Immutable
 * and threadsafe.
 *
 * @param count        how many were measured
 * @param total        their sum
 * @param max          the largest (zero if none)
 * @param bucketBounds the inclusive upper bound of each bucket but the last, which is unbounded
 * @param bucketCounts how many fell in each bucket (not cumulative); one more entry than bounds
 */
public record LatencySummary(
        long count, Duration total, Duration max, List<Duration> bucketBounds, List<Long> bucketCounts) {

    /** Checks the shape and copies the lists. */
    public LatencySummary {
        Objects.requireNonNull(total, "total");
        Objects.requireNonNull(max, "max");
        bucketBounds = List.copyOf(bucketBounds);
        bucketCounts = List.copyOf(bucketCounts);
        if (bucketCounts.size() != bucketBounds.size() + 1) {
            throw new IllegalArgumentException("bucketCounts needs one entry more than bucketBounds: "
                    + bucketCounts.size() + " vs " + bucketBounds.size());
        }
    }

    /** The mean, or zero if nothing was measured. */
    public Duration mean() {
        return count == 0 ? Duration.ZERO : total.dividedBy(count);
    }

    /**
     * An upper bound of the {@code q}-quantile ({@code 0 < q <= 1}): the bound of the bucket
     * holding it, or {@link #max()} if it lies in the unbounded bucket.
     */
    public Duration quantileUpperBound(double q) {
        if (!(q > 0 && q <= 1)) {
            throw new IllegalArgumentException("q must be in (0, 1], was " + q);
        }
        if (count == 0) {
            return Duration.ZERO;
        }
        long rank = (long) Math.ceil(q * count);
        long seen = 0;
        for (int i = 0; i < bucketBounds.size(); i++) {
            seen += bucketCounts.get(i);
            if (seen >= rank) {
                Duration bound = bucketBounds.get(i);
                return bound.compareTo(max) < 0 ? bound : max;
            }
        }
        return max;
    }
}
