package dev.retrysafe.server.webhooks;

import com.fasterxml.jackson.databind.JsonNode;
import dev.retrysafe.delivery.AttemptBucket;
import dev.retrysafe.delivery.Delivery;
import dev.retrysafe.delivery.DeliveryAttempt;
import dev.retrysafe.delivery.DeliveryDetail;
import dev.retrysafe.delivery.EndpointHealth;
import dev.retrysafe.delivery.EndpointWithSecret;
import dev.retrysafe.delivery.StoredAttempt;
import dev.retrysafe.delivery.WebhookEndpoint;
import dev.retrysafe.delivery.WebhookEndpointRepresentation;
import dev.retrysafe.server.http.Json;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/** The API representations of endpoints, deliveries and attempts. */
final class WebhookJson {

    private WebhookJson() {}

    /** Hours of attempts an endpoint's {@code health} covers. */
    static final int HEALTH_WINDOW_HOURS = 24;

    static Map<String, @Nullable Object> endpoint(WebhookEndpoint e, EndpointHealth health) {
        Map<String, @Nullable Object> m = WebhookEndpointRepresentation.of(e);
        m.put("health", health(health));
        return m;
    }

    /** How the attempts of the last {@value #HEALTH_WINDOW_HOURS} hours went. */
    private static Map<String, @Nullable Object> health(EndpointHealth h) {
        Map<String, @Nullable Object> m = new LinkedHashMap<>();
        m.put("window_hours", HEALTH_WINDOW_HOURS);
        m.put("attempts", h.attempts());
        m.put("succeeded", h.succeeded());
        m.put("success_rate", h.successRate().isPresent() ? h.successRate().getAsDouble() : null);
        m.put("last_attempt_at", time(h.lastAttemptAt()));
        m.put("last_outcome", h.lastOutcome() == null ? null : wire(h.lastOutcome()));
        return m;
    }

    /**
     * {@code GET /v1/webhook_attempt_stats}: the buckets of {@code hours} hours from {@code from},
     * outcomes by wire name in a fixed order.
     */
    static Map<String, Object> attemptStats(Instant from, int hours, List<AttemptBucket> buckets) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("object", "webhook_attempt_stats");
        m.put("from", time(from));
        m.put("to", time(from.plus(Duration.ofHours(hours))));
        m.put("bucket_seconds", Duration.ofHours(1).toSeconds());
        m.put(
                "buckets",
                buckets.stream()
                        .map(b -> {
                            Map<String, Object> outcomes = new LinkedHashMap<>();
                            b.counts()
                                    .forEach((outcome, n) ->
                                            outcomes.put(wire(outcome), n)); // an EnumMap: declaration order
                            Map<String, Object> bucket = new LinkedHashMap<>();
                            bucket.put("start", time(b.start()));
                            bucket.put("outcomes", outcomes);
                            return bucket;
                        })
                        .toList());
        return m;
    }

    /** The endpoint with its {@code secret}: only on creation and rotation. */
    static Map<String, @Nullable Object> endpointWithSecret(EndpointWithSecret e, EndpointHealth health) {
        Map<String, @Nullable Object> m = endpoint(e.endpoint(), health);
        m.put("secret", e.secret().encoded());
        return m;
    }

    static Map<String, @Nullable Object> delivery(Delivery d) {
        Map<String, @Nullable Object> m = new LinkedHashMap<>();
        m.put("id", d.id());
        m.put("object", "delivery");
        m.put("endpoint_id", d.endpointId());
        m.put("event_id", d.eventId());
        m.put("event_type", d.eventType());
        m.put("status", d.status().wireName());
        m.put("attempt_count", d.attempts());
        m.put("next_attempt_at", time(d.nextAttemptAt()));
        m.put("created_at", time(d.createdAt()));
        m.put("last_attempt_at", time(d.lastAttemptAt()));
        m.put("last_outcome", d.lastOutcome() == null ? null : wire(d.lastOutcome()));
        m.put("last_status_code", d.lastStatusCode());
        return m;
    }

    /** The delivery with the payload it sends (as JSON when it is JSON) and every attempt, oldest first. */
    static Map<String, @Nullable Object> deliveryDetail(DeliveryDetail detail) {
        Map<String, @Nullable Object> m = delivery(detail.delivery());
        m.put("payload", payload(detail.payload()));
        m.put("attempts", detail.attempts().stream().map(WebhookJson::attempt).toList());
        return m;
    }

    static Map<String, @Nullable Object> attempt(DeliveryAttempt a) {
        Map<String, @Nullable Object> m = new LinkedHashMap<>();
        m.put("id", a.id());
        m.put("object", "delivery_attempt");
        m.put("number", a.number());
        m.put("started_at", time(a.startedAt()));
        m.put("outcome", wire(a.outcome()));
        m.put("status_code", a.statusCode());
        m.put("latency_ms", a.latency().toMillis());
        m.put("response", a.responseSnippet());
        m.put("error", a.errorDetail().isEmpty() ? null : a.errorDetail());
        return m;
    }

    /**
     * A stored attempt as the live stream shows it: the attempt (without the receiver's answer,
     * which {@code GET /v1/deliveries/{id}} has) and where its delivery stands.
     */
    static Map<String, @Nullable Object> attempted(StoredAttempt stored) {
        Map<String, @Nullable Object> m = new LinkedHashMap<>();
        m.put("delivery_id", stored.attempt().deliveryId());
        m.put("endpoint_id", stored.endpointId());
        m.put(
                "delivery_status",
                stored.deliveryStatus() == null ? null : stored.deliveryStatus().wireName());
        m.put("endpoint_disabled", stored.endpointDisabled());
        Map<String, @Nullable Object> attempt = attempt(stored.attempt());
        attempt.remove("response");
        m.put("attempt", attempt);
        return m;
    }

    private static Object payload(byte[] bytes) {
        try {
            JsonNode node = Json.MAPPER.readTree(bytes);
            return node == null ? "" : node;
        } catch (java.io.IOException e) {
            return new String(bytes, StandardCharsets.UTF_8);
        }
    }

    private static String wire(Enum<?> outcome) {
        return outcome.name().toLowerCase(java.util.Locale.ROOT);
    }

    static @Nullable String time(@Nullable Instant at) {
        return at == null ? null : DateTimeFormatter.ISO_INSTANT.format(at.truncatedTo(ChronoUnit.MILLIS));
    }
}
