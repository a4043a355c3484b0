package dev.retrysafe.delivery;

import dev.retrysafe.delivery.internal.CustomHeaders;
import dev.retrysafe.delivery.internal.DeliveryChecks;
import java.net.URI;
import java.util.Map;
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
 * @param headers     headers every attempt carries besides the dispatcher's own (an API key the
 *                    receiver checks, say), name to value: at most 20, names HTTP tokens that are
 *                    not the dispatcher's (signature, trace context, framing), values visible
 *                    ASCII; kept like the secret: shown only by name, never logged (toString
 *                    names them only)
 */
public record NewEndpoint(
        URI url,
        Set<String> eventTypes,
        String description,
        @Nullable Integer rateLimit,
        boolean ordered,
        Map<String, String> headers) {

    /** Checks every field. */
    public NewEndpoint {
        DeliveryChecks.url(Objects.requireNonNull(url, "url"));
        eventTypes = DeliveryChecks.eventTypes(Objects.requireNonNull(eventTypes, "eventTypes"));
        DeliveryChecks.description(Objects.requireNonNull(description, "description"));
        if (rateLimit != null) {
            DeliveryChecks.rateLimit(rateLimit);
        }
        headers = CustomHeaders.check("headers", headers);
    }

    /** An endpoint without custom headers, ordered or not. */
    public NewEndpoint(
            URI url, Set<String> eventTypes, String description, @Nullable Integer rateLimit, boolean ordered) {
        this(url, eventTypes, description, rateLimit, ordered, Map.of());
    }

    /** An endpoint that is not ordered, with {@code headers}. */
    public NewEndpoint(
            URI url,
            Set<String> eventTypes,
            String description,
            @Nullable Integer rateLimit,
            Map<String, String> headers) {
        this(url, eventTypes, description, rateLimit, false, headers);
    }

    /** An endpoint that is not ordered, without custom headers. */
    public NewEndpoint(URI url, Set<String> eventTypes, String description, @Nullable Integer rateLimit) {
        this(url, eventTypes, description, rateLimit, false, Map.of());
    }

    /** An endpoint without a rate limit. */
    public NewEndpoint(URI url, Set<String> eventTypes, String description) {
        this(url, eventTypes, description, null, false);
    }

    /** This endpoint with {@code headers} (replacing any it had). */
    public NewEndpoint withHeaders(Map<String, String> headers) {
        return new NewEndpoint(url, eventTypes, description, rateLimit, ordered, headers);
    }

    /** Names the custom headers, never their values. */
    @Override
    public String toString() {
        return "NewEndpoint[url=" + url + ", eventTypes=" + eventTypes + ", description=" + description + ", rateLimit="
                + rateLimit + ", ordered=" + ordered + ", headers=" + headers.keySet() + "]";
    }
}
