package dev.retrysafe.sdk;

import java.time.Instant;
import java.util.Objects;

/**
 * A refund of (part of) a payment. Immutable and threadsafe.
 *
 * @param id {@code re_...}
 * @param paymentId the refunded payment
 * @param amount in minor units
 * @param status {@code succeeded}
 * @param createdAt when it was made
 */
public record Refund(String id, String paymentId, long amount, String status, Instant createdAt) {

    /** Checks that the values are there. */
    public Refund {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(paymentId, "paymentId");
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(createdAt, "createdAt");
    }
}
