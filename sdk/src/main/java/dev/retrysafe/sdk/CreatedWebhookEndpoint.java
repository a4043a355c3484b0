package dev.retrysafe.sdk;

import java.util.Objects;

/**
 * A webhook endpoint just registered, or whose secret was just rotated, with the signing secret
 * the API shows in those two answers (and on {@code GET .../secret}). Immutable and threadsafe.
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
