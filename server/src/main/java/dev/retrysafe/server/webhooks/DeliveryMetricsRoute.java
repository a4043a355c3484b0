package dev.retrysafe.server.webhooks;

import dev.retrysafe.delivery.AttemptResult.Outcome;
import dev.retrysafe.delivery.DeliveryMetrics;
import dev.retrysafe.delivery.Dispatcher;
import dev.retrysafe.delivery.LatencySummary;
import dev.retrysafe.delivery.QueueDepth;
import io.javalin.http.Context;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * {@code GET /metrics}: the webhook dispatcher's figures in the Prometheus text format (0.0.4):
 * attempts by outcome, finished deliveries, disabled endpoints, attempts in flight, the queue
 * (due, scheduled, being delivered; shared by every instance, from the database) and the time
 * from each event's commit to its delivery's first attempt as a histogram. Counters are this
 * instance's since it started. Threadsafe.
 */
public final class DeliveryMetricsRoute {

    private final Dispatcher dispatcher;

    /** The route over {@code dispatcher}'s figures. */
    public DeliveryMetricsRoute(Dispatcher dispatcher) {
        this.dispatcher = dispatcher;
    }

    /** The handler of {@code GET /metrics}. */
    public void metrics(Context ctx) {
        ctx.contentType("text/plain; version=0.0.4; charset=utf-8");
        ctx.result(render(dispatcher.metrics(), dispatcher.queueDepth()));
    }

    static String render(DeliveryMetrics metrics, QueueDepth queue) {
        StringBuilder out = new StringBuilder(2048);
        family(out, "retrysafe_webhook_attempts_total", "counter", "Webhook delivery attempts by outcome.");
        for (Outcome outcome : Outcome.values()) {
            sample(out, "retrysafe_webhook_attempts_total{outcome=\"" + outcome.name().toLowerCase(Locale.ROOT) + "\"}",
                    metrics.attempts(outcome));
        }
        family(out, "retrysafe_webhook_deliveries_total", "counter", "Deliveries finished, by final status.");
        sample(out, "retrysafe_webhook_deliveries_total{status=\"succeeded\"}", metrics.deliveriesSucceeded());
        sample(out, "retrysafe_webhook_deliveries_total{status=\"failed\"}", metrics.deliveriesFailed());
        family(out, "retrysafe_webhook_endpoints_disabled_total", "counter", "Endpoints disabled by failures or 410 Gone.");
        sample(out, "retrysafe_webhook_endpoints_disabled_total", metrics.endpointsDisabled());
        family(out, "retrysafe_webhook_attempts_in_flight", "gauge", "Attempts this instance is sending now.");
        sample(out, "retrysafe_webhook_attempts_in_flight", metrics.inFlight());
        family(out, "retrysafe_webhook_queue_depth", "gauge", "Deliveries waiting, across all instances.");
        sample(out, "retrysafe_webhook_queue_depth{state=\"due\"}", queue.due());
        sample(out, "retrysafe_webhook_queue_depth{state=\"scheduled\"}", queue.scheduled());
        sample(out, "retrysafe_webhook_queue_depth{state=\"delivering\"}", queue.delivering());
        histogram(out, metrics.firstAttemptLatency());
        return out.toString();
    }

    private static void histogram(StringBuilder out, LatencySummary latency) {
        String name = "retrysafe_webhook_first_attempt_latency_seconds";
        family(out, name, "histogram", "From an event's commit to the start of its delivery's first attempt.");
        List<Duration> bounds = latency.bucketBounds();
        long cumulative = 0;
        for (int i = 0; i < bounds.size(); i++) {
            cumulative += latency.bucketCounts().get(i);
            sample(out, name + "_bucket{le=\"" + seconds(bounds.get(i)) + "\"}", cumulative);
        }
        cumulative += latency.bucketCounts().get(bounds.size());
        sample(out, name + "_bucket{le=\"+Inf\"}", cumulative);
        out.append(name).append("_sum ").append(seconds(latency.total())).append('\n');
        sample(out, name + "_count", latency.count());
    }

    private static String seconds(Duration d) {
        return java.math.BigDecimal.valueOf(d.toMillis(), 3).stripTrailingZeros().toPlainString();
    }

    private static void family(StringBuilder out, String name, String type, String help) {
        out.append("# HELP ").append(name).append(' ').append(help).append('\n');
        out.append("# TYPE ").append(name).append(' ').append(type).append('\n');
    }

    private static void sample(StringBuilder out, String series, long value) {
        out.append(series).append(' ').append(value).append('\n');
    }
}
