package dev.retrysafe.delivery;

import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * A webhook endpoint as an API shows it, the shape of the Retrysafe server's
 * {@code GET /v1/webhook_endpoints/{id}} (without the server's {@code health}, which it adds):
 * one writer for the server, the Spring Boot starter and any application that manages endpoints
 * over HTTP. Never its secret. The map keeps its members in order and holds only strings, numbers,
 * booleans, lists of strings and {@code null}, ready for any JSON writer; times are ISO-8601
 * instants. Stateless and threadsafe.
 */
public final class WebhookEndpointRepresentation {

    private WebhookEndpointRepresentation() {}

    /** The endpoint's members; a caller may add its own after them. */
    public static Map<String, @Nullable Object> of(WebhookEndpoint e) {
        Map<String, @Nullable Object> m = new LinkedHashMap<>();
        m.put("id", e.id());
        m.put("object", "webhook_endpoint");
        m.put("url", e.url().toString());
        m.put("description", e.description());
        m.put("event_types", e.eventTypes().stream().sorted().toList());
        // disabled outranks paused: a disabled endpoint gets no deliveries at all
        m.put("status", !e.enabled() ? "disabled" : e.paused() ? "paused" : "enabled");
        m.put("enabled", e.enabled());
        m.put(
                "disabled_reason",
                e.disabledReason() == null ? null : e.disabledReason().wireName());
        m.put("created_at", time(e.createdAt()));
        m.put("updated_at", time(e.updatedAt()));
        m.put("failing_since", time(e.failingSince()));
        m.put("previous_secret_expires_at", time(e.previousSecretExpiresAt()));
        m.put("rate_limit", e.rateLimit());
        m.put("paused_at", time(e.pausedAt()));
        m.put("ordered", e.ordered());
        // custom headers are shown by name only, like a secret that is never shown again
        m.put(
                "header_names",
                e.headerNames().stream().sorted(String.CASE_INSENSITIVE_ORDER).toList());
        return m;
    }

    private static @Nullable String time(@Nullable Instant at) {
        return at == null ? null : DateTimeFormatter.ISO_INSTANT.format(at);
    }
}
