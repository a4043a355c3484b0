package dev.retrysafe.delivery;

import dev.retrysafe.delivery.AttemptResult.Outcome;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.IntSupplier;
import org.jspecify.annotations.Nullable;

/**
 * Counters of one {@link Dispatcher} since it was built, for an application to export (the
 * server maps them to Micrometer): attempts by outcome, deliveries finished, endpoints disabled,
 * attempts in flight, and the latency from an event's time to the start of its delivery's first
 * attempt. Queue depth is a database query: {@link Dispatcher#queueDepth()}. This class is
 * threadsafe; reads are not one atomic snapshot across counters.
 */
public final class DeliveryMetrics {

    /** Upper bounds of the latency histogram's buckets. */
    public static final List<Duration> LATENCY_BUCKETS = List.of(
            Duration.ofMillis(10),
            Duration.ofMillis(25),
            Duration.ofMillis(50),
            Duration.ofMillis(100),
            Duration.ofMillis(200),
            Duration.ofMillis(500),
            Duration.ofSeconds(1),
            Duration.ofSeconds(2),
            Duration.ofSeconds(5),
            Duration.ofSeconds(10),
            Duration.ofSeconds(30),
            Duration.ofMinutes(1));

    private final Map<Outcome, LongAdder> attempts = new EnumMap<>(Outcome.class);
    private final LongAdder succeeded = new LongAdder();
    private final LongAdder failed = new LongAdder();
    private final LongAdder endpointsDisabled = new LongAdder();
    private final LongAdder latencyCount = new LongAdder();
    private final LongAdder latencyTotalMillis = new LongAdder();
    private final AtomicLong latencyMaxMillis = new AtomicLong();
    private final LongAdder[] latencyBuckets = new LongAdder[LATENCY_BUCKETS.size() + 1];
    private final IntSupplier inFlight;

    DeliveryMetrics(IntSupplier inFlight) {
        this.inFlight = inFlight;
        for (Outcome outcome : Outcome.values()) {
            attempts.put(outcome, new LongAdder());
        }
        for (int i = 0; i < latencyBuckets.length; i++) {
            latencyBuckets[i] = new LongAdder();
        }
    }

    /** Attempts whose result had {@code outcome}. */
    public long attempts(Outcome outcome) {
        return attempts.get(outcome).sum();
    }

    /** Attempts by outcome, every outcome present. */
    public Map<Outcome, Long> attemptsByOutcome() {
        Map<Outcome, Long> out = new EnumMap<>(Outcome.class);
        attempts.forEach((outcome, count) -> out.put(outcome, count.sum()));
        return Collections.unmodifiableMap(out);
    }

    /** All attempts. */
    public long attemptsTotal() {
        return attempts.values().stream().mapToLong(LongAdder::sum).sum();
    }

    /** Deliveries that succeeded. */
    public long deliveriesSucceeded() {
        return succeeded.sum();
    }

    /** Deliveries that failed (schedule used up or endpoint disabled). */
    public long deliveriesFailed() {
        return failed.sum();
    }

    /** Endpoints this dispatcher disabled. */
    public long endpointsDisabled() {
        return endpointsDisabled.sum();
    }

    /** Attempts under way now. */
    public int inFlight() {
        return inFlight.getAsInt();
    }

    /** From each event's time to the start of its delivery's first attempt. */
    public LatencySummary firstAttemptLatency() {
        List<Long> counts = new ArrayList<>(latencyBuckets.length);
        for (LongAdder bucket : latencyBuckets) {
            counts.add(bucket.sum());
        }
        return new LatencySummary(
                latencyCount.sum(),
                Duration.ofMillis(latencyTotalMillis.sum()),
                Duration.ofMillis(latencyMaxMillis.get()),
                LATENCY_BUCKETS,
                counts);
    }

    /** Records one attempt, called by the dispatcher once its outcome is stored. */
    void record(
            Outcome outcome,
            @Nullable Duration firstAttemptLatency,
            @Nullable DeliveryStatus finished,
            boolean disabledEndpoint) {
        attempts.get(outcome).increment();
        if (firstAttemptLatency != null) {
            long millis = Math.max(0, firstAttemptLatency.toMillis());
            latencyCount.increment();
            latencyTotalMillis.add(millis);
            latencyMaxMillis.accumulateAndGet(millis, Math::max);
            int bucket = 0;
            while (bucket < LATENCY_BUCKETS.size()
                    && millis > LATENCY_BUCKETS.get(bucket).toMillis()) {
                bucket++;
            }
            latencyBuckets[bucket].increment();
        }
        if (finished == DeliveryStatus.SUCCEEDED) {
            succeeded.increment();
        } else if (finished == DeliveryStatus.FAILED) {
            failed.increment();
        }
        if (disabledEndpoint) {
            endpointsDisabled.increment();
        }
    }
}
