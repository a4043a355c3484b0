package dev.retrysafe.delivery;

import dev.retrysafe.webhooks.WebhookSecret;
import java.util.Objects;

/**
 * An endpoint with its current signing secret, as answered on creation and rotation. The
 * secret's {@code toString()} is redacted; only {@link WebhookSecret#encoded()} reveals it.
 * Immutable and threadsafe.
 *
 * @param endpoint the endpoint
 * @param secret   its current secret
 */
public record EndpointWithSecret(WebhookEndpoint endpoint, WebhookSecret secret) {

    /** Checks presence. */
    public EndpointWithSecret {
        Objects.requireNonNull(endpoint, "endpoint");
        Objects.requireNonNull(secret, "secret");
    }
}
