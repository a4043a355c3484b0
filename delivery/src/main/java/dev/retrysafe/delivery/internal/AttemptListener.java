package dev.retrysafe.delivery.internal;

import dev.retrysafe.delivery.AttemptResult.Outcome;
import dev.retrysafe.delivery.DeliveryStatus;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/** Told of every attempt whose outcome was stored (for metrics). Implementations are threadsafe. */
@FunctionalInterface
public interface AttemptListener {

    /**
     * One attempt was made and stored.
     *
     * @param outcome             its class
     * @param firstAttemptLatency from the event's time to this attempt's start, for first attempts
     * @param finished            the delivery's final status, if this attempt finished it
     * @param disabledEndpoint    whether this attempt disabled its endpoint
     */
    void attempted(
            Outcome outcome,
            @Nullable Duration firstAttemptLatency,
            @Nullable DeliveryStatus finished,
            boolean disabledEndpoint);
}
