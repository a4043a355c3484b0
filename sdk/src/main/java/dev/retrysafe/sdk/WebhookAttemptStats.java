package dev.retrysafe.sdk;

import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * The account's webhook attempts by outcome in hourly buckets ({@code GET /v1/webhook_attempt_stats}).
 * Immutable and threadsafe.
 *
 * @param from the start of the first bucket
 * @param to the end of the last bucket
 * @param bucketLength the length of each bucket (one hour)
 * @param buckets one per hour, oldest first
 */
public record WebhookAttemptStats(Instant from, Instant to, Duration bucketLength, List<Bucket> buckets) {

    /** Copies the buckets. */
    public WebhookAttemptStats {
        Objects.requireNonNull(from, "from");
        Objects.requireNonNull(to, "to");
        Objects.requireNonNull(bucketLength, "bucketLength");
        buckets = List.copyOf(buckets);
    }

    /** The attempts of every bucket added up, by outcome (sorted by outcome name). */
    public Map<String, Long> totals() {
        Map<String, Long> sums = new TreeMap<>();
        for (Bucket b : buckets) {
            b.outcomes().forEach((outcome, n) -> sums.merge(outcome, n, Long::sum));
        }
        return Collections.unmodifiableMap(sums);
    }

    /**
     * One hour of attempts.
     *
     * @param start when the hour starts
     * @param outcomes attempts by outcome, such as {@code success} or {@code http_error}
     */
    public record Bucket(Instant start, Map<String, Long> outcomes) {

        /** Copies the counts. */
        public Bucket {
            Objects.requireNonNull(start, "start");
            outcomes = Collections.unmodifiableMap(new LinkedHashMap<>(outcomes));
        }
    }
}
