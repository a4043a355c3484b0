package dev.retrysafe.server.webhooks;

import dev.retrysafe.delivery.AttemptResult.Outcome;
import dev.retrysafe.delivery.DeliveryMetrics;
import dev.retrysafe.delivery.Dispatcher;
import dev.retrysafe.delivery.LatencySummary;
import dev.retrysafe.delivery.QueueDepth;
import dev.retrysafe.server.http.PrometheusText;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;

/**
 * The webhook section of {@code GET /metrics}: the dispatcher's figures in the Prometheus text format (0.0.4):
 * attempts by outcome, finished deliveries, disabled endpoints, attempts in flight, the queue
 * (due, scheduled, being delivered; shared by every instance, from the database) and the time
 * from each event's commit to its delivery's first attempt as a histogram. Counters are this
 * instance's since it started. Threadsafe.
 */
public final class DeliveryMetricsRoute implements Supplier<String> {

    private final Dispatcher dispatcher;

    /** The route over {@code dispatcher}'s figures. */
    public DeliveryMetricsRoute(Dispatcher dispatcher) {
        this.dispatcher = dispatcher;
    }

    @Override
    public String get() {
        return render(dispatcher.metrics(), dispatcher.queueDepth());
    }

    static String render(DeliveryMetrics metrics, QueueDepth queue) {
        PrometheusText out = new PrometheusText();
        out.family("retrysafe_webhook_attempts_total", "counter", "Webhook delivery attempts by outcome.");
        for (Outcome outcome : Outcome.values()) {
            out.sample(
                    "retrysafe_webhook_attempts_total{outcome=\""
                            + outcome.name().toLowerCase(Locale.ROOT) + "\"}",
                    metrics.attempts(outcome));
        }
        out.family("retrysafe_webhook_deliveries_total", "counter", "Deliveries finished, by final status.")
                .sample("retrysafe_webhook_deliveries_total{status=\"succeeded\"}", metrics.deliveriesSucceeded())
                .sample("retrysafe_webhook_deliveries_total{status=\"failed\"}", metrics.deliveriesFailed())
                .family(
                        "retrysafe_webhook_endpoints_disabled_total",
                        "counter",
                        "Endpoints disabled by failures or 410 Gone.")
                .sample("retrysafe_webhook_endpoints_disabled_total", metrics.endpointsDisabled())
                .family("retrysafe_webhook_attempts_in_flight", "gauge", "Attempts this instance is sending now.")
                .sample("retrysafe_webhook_attempts_in_flight", metrics.inFlight())
                .family("retrysafe_webhook_queue_depth", "gauge", "Deliveries waiting, across all instances.")
                .sample("retrysafe_webhook_queue_depth{state=\"due\"}", queue.due())
                .sample("retrysafe_webhook_queue_depth{state=\"scheduled\"}", queue.scheduled())
                .sample("retrysafe_webhook_queue_depth{state=\"delivering\"}", queue.delivering());
        histogram(out, metrics.firstAttemptLatency());
        return out.toString();
    }

    private static void histogram(PrometheusText out, LatencySummary latency) {
        String name = "retrysafe_webhook_first_attempt_latency_seconds";
        out.family(name, "histogram", "From an event's commit to the start of its delivery's first attempt.");
        List<Duration> bounds = latency.bucketBounds();
        long cumulative = 0;
        for (int i = 0; i < bounds.size(); i++) {
            cumulative += latency.bucketCounts().get(i);
            out.sample(
                    name + "_bucket{le=\""
                            + PrometheusText.seconds(bounds.get(i))
                                    .stripTrailingZeros()
                                    .toPlainString() + "\"}",
                    cumulative);
        }
        cumulative += latency.bucketCounts().get(bounds.size());
        out.sample(name + "_bucket{le=\"+Inf\"}", cumulative)
                .sample(name + "_sum", PrometheusText.seconds(latency.total()))
                .sample(name + "_count", latency.count());
    }
}
