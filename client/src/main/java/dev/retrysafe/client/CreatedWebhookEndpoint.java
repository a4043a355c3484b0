package dev.retrysafe.client;

import java.util.Objects;

/**
 * A webhook endpoint just registered, with the signing secret the API shows only now.
 * Immutable and threadsafe.
 *
 * @param endpoint the endpoint
 * @param secret its signing secret, {@code whsec_} and base64; keep it secret
 */
public record CreatedWebhookEndpoint(WebhookEndpoint endpoint, String secret) {

    /** Checks the values. */
    public CreatedWebhookEndpoint {
        Objects.requireNonNull(endpoint, "endpoint");
        Objects.requireNonNull(secret, "secret");
    }

    @Override
    public String toString() {
        return "CreatedWebhookEndpoint[endpoint=" + endpoint + ", secret=(hidden)]";
    }
}
