package dev.retrysafe.delivery;

import dev.retrysafe.delivery.internal.Checks;
import java.net.URI;
import java.util.Objects;
import java.util.Set;

/**
 * What a new webhook endpoint is made of. Immutable and threadsafe. The URL is only checked for
 * form here; the SSRF guard must accept it before {@link WebhookEndpoints#create} is called.
 *
 * @param url         an absolute http(s) URL, at most 2048 characters
 * @param eventTypes  1 to 100 event types such as {@code payment.succeeded}, or {@code *} for all
 * @param description free text, at most 1024 characters
 */
public record NewEndpoint(URI url, Set<String> eventTypes, String description) {

    /** Checks every field. */
    public NewEndpoint {
        Checks.url(Objects.requireNonNull(url, "url"));
        eventTypes = Checks.eventTypes(Objects.requireNonNull(eventTypes, "eventTypes"));
        Checks.description(Objects.requireNonNull(description, "description"));
    }
}
