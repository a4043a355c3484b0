package dev.retrysafe.sdk;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One attempt of a {@link Delivery}. Immutable and threadsafe.
 *
 * @param id {@code att_...}
 * @param number 1 for the first attempt
 * @param startedAt when it started
 * @param outcome {@code success}, {@code http_error}, {@code timeout}, {@code connection_error},
 *     {@code dns_error}, {@code blocked} or {@code protocol_error}
 * @param statusCode the status the endpoint answered, or {@code null} without an answer
 * @param latency how long it took
 * @param response the first 1 KiB of the endpoint's answer (text from a stranger: escape it when shown)
 * @param error what went wrong without an answer, or {@code null}
 */
public record DeliveryAttempt(
        String id,
        int number,
        Instant startedAt,
        String outcome,
        @Nullable Integer statusCode,
        Duration latency,
        String response,
        @Nullable String error) {

    /** Checks that the required values are there. */
    public DeliveryAttempt {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(startedAt, "startedAt");
        Objects.requireNonNull(outcome, "outcome");
        Objects.requireNonNull(latency, "latency");
        Objects.requireNonNull(response, "response");
    }
}
