package dev.retrysafe.spring.internal;

import dev.retrysafe.delivery.AttemptResult.Outcome;
import dev.retrysafe.delivery.DeliveryMetrics;
import dev.retrysafe.delivery.Dispatcher;
import dev.retrysafe.delivery.QueueDepth;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;

/**
 * The dispatcher's figures as Micrometer meters whose Prometheus names are those of the
 * Retrysafe server's {@code /metrics}: {@code retrysafe_webhook_attempts_total{outcome}},
 * {@code retrysafe_webhook_deliveries_total{status}}, {@code retrysafe_webhook_endpoints_disabled_total},
 * {@code retrysafe_webhook_attempts_in_flight}, {@code retrysafe_webhook_queue_depth{state}} and
 * {@code retrysafe_webhook_first_attempt_latency_seconds} (its {@code _count} and {@code _sum};
 * the server's buckets are not repeated). The counters read the dispatcher's own
 * {@link DeliveryMetrics}; the queue is one database query per scrape. Threadsafe.
 */
public final class DeliveryMeters implements MeterBinder {

    private static final Duration QUEUE_TTL = Duration.ofSeconds(1);

    private final Dispatcher dispatcher;

    /** The meters of {@code dispatcher}. */
    public DeliveryMeters(Dispatcher dispatcher) {
        this.dispatcher = dispatcher;
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        DeliveryMetrics metrics = dispatcher.metrics();
        for (Outcome outcome : Outcome.values()) {
            FunctionCounter.builder("retrysafe.webhook.attempts", metrics, m -> m.attempts(outcome))
                    .description("Webhook delivery attempts by outcome.")
                    .tag("outcome", outcome.name().toLowerCase(Locale.ROOT))
                    .register(registry);
        }
        FunctionCounter.builder("retrysafe.webhook.deliveries", metrics, DeliveryMetrics::deliveriesSucceeded)
                .description("Deliveries finished, by final status.")
                .tag("status", "succeeded")
                .register(registry);
        FunctionCounter.builder("retrysafe.webhook.deliveries", metrics, DeliveryMetrics::deliveriesFailed)
                .description("Deliveries finished, by final status.")
                .tag("status", "failed")
                .register(registry);
        FunctionCounter.builder("retrysafe.webhook.endpoints.disabled", metrics, DeliveryMetrics::endpointsDisabled)
                .description("Endpoints disabled by failures or 410 Gone.")
                .register(registry);
        Gauge.builder("retrysafe.webhook.attempts.in.flight", metrics, DeliveryMetrics::inFlight)
                .description("Attempts this instance is sending now.")
                .register(registry);
        Memo<QueueDepth> queue = new Memo<>(dispatcher::queueDepth, QUEUE_TTL);
        queueGauge(registry, queue, "due", QueueDepth::due);
        queueGauge(registry, queue, "scheduled", QueueDepth::scheduled);
        queueGauge(registry, queue, "delivering", QueueDepth::delivering);
        FunctionTimer.builder(
                        "retrysafe.webhook.first.attempt.latency",
                        metrics,
                        m -> m.firstAttemptLatency().count(),
                        m -> m.firstAttemptLatency().total().toNanos(),
                        TimeUnit.NANOSECONDS)
                .description("From an event's commit to the start of its delivery's first attempt.")
                .register(registry);
    }

    private static void queueGauge(
            MeterRegistry registry, Memo<QueueDepth> queue, String state, ToDoubleFunction<QueueDepth> count) {
        Gauge.builder("retrysafe.webhook.queue.depth", queue, q -> count.applyAsDouble(q.get()))
                .description("Deliveries waiting, across all instances.")
                .tag("state", state)
                .strongReference(true)
                .register(registry);
    }
}
