package dev.retrysafe.sdk;

import java.time.Instant;
import java.util.Objects;

/**
 * The answer to {@code POST /v1/webhook_endpoints/{id}/recover}. Immutable and threadsafe.
 *
 * @param endpointId the endpoint
 * @param since the earliest creation time of the deliveries sent again
 * @param recovered how many failed deliveries will be sent again
 */
public record Recovery(String endpointId, Instant since, int recovered) {

    /** Checks the values. */
    public Recovery {
        Objects.requireNonNull(endpointId, "endpointId");
        Objects.requireNonNull(since, "since");
    }
}
