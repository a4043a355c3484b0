package dev.retrysafe.delivery;

import dev.retrysafe.delivery.internal.DeliveryChecks;
import java.net.URI;
import java.util.Objects;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * What a new webhook endpoint is made of. Immutable and threadsafe. The URL is only checked for
 * form here; the SSRF guard must accept it before {@link WebhookEndpoints#create} is called.
 *
 * @param url         an absolute http(s) URL, at most 2048 characters
 * @param eventTypes  1 to 100 {@link EventTypePatterns}: event types such as {@code payment.succeeded},
 *                    prefixes such as {@code payment.*}, or {@code *} for all
 * @param description free text, at most 1024 characters
 * @param rateLimit   most attempts per second to the endpoint, 1 to
 *                    {@value WebhookEndpoints#MAX_RATE_LIMIT}; {@code null} for no limit (see
 *                    {@link Dispatcher} for how exactly it is kept)
 * @param ordered     whether the events of one ordering key reach it one at a time, in commit order
 *                    (docs/webhooks.md)
 */
public record NewEndpoint(
        URI url,
        Set<String> eventTypes,
        String description,
        @Nullable Integer rateLimit,
        boolean ordered) {

    /** An endpoint that is not ordered. */
    public NewEndpoint(URI url, Set<String> eventTypes, String description, @Nullable Integer rateLimit) {
        this(url, eventTypes, description, rateLimit, false);
    }

    /** Checks every field. */
    public NewEndpoint {
        DeliveryChecks.url(Objects.requireNonNull(url, "url"));
        eventTypes = DeliveryChecks.eventTypes(Objects.requireNonNull(eventTypes, "eventTypes"));
        DeliveryChecks.description(Objects.requireNonNull(description, "description"));
        if (rateLimit != null) {
            DeliveryChecks.rateLimit(rateLimit);
        }
    }

    /** An endpoint without a rate limit. */
    public NewEndpoint(URI url, Set<String> eventTypes, String description) {
        this(url, eventTypes, description, null, false);
    }
}
