package dev.retrysafe.client;

import java.time.Instant;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A registered webhook endpoint (its secret is only in {@link CreatedWebhookEndpoint}).
 * Immutable and threadsafe.
 *
 * @param id {@code we_...}
 * @param url where events are delivered
 * @param description free text, or {@code null}
 * @param eventTypes the event types delivered there, such as {@code payment.succeeded}, or {@code *}
 * @param enabled whether deliveries are made
 * @param createdAt when it was registered
 */
public record WebhookEndpoint(String id, String url, @Nullable String description, List<String> eventTypes,
                              boolean enabled, Instant createdAt) {

    /** Copies the event types. */
    public WebhookEndpoint {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(url, "url");
        eventTypes = List.copyOf(eventTypes);
        Objects.requireNonNull(createdAt, "createdAt");
    }
}
