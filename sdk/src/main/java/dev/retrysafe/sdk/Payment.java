package dev.retrysafe.sdk;

import java.time.Instant;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A payment of the Retrysafe API. Immutable and threadsafe.
 *
 * @param id {@code pay_...}
 * @param amount in minor units (cents)
 * @param amountRefunded the sum of its refunds, in minor units
 * @param currency lower-case ISO 4217 code, such as {@code eur}
 * @param status {@code succeeded} or {@code failed}
 * @param description free text, or {@code null}
 * @param createdAt when it was made
 */
public record Payment(
        String id,
        long amount,
        long amountRefunded,
        String currency,
        String status,
        @Nullable String description,
        Instant createdAt) {

    /** Checks that the required values are there. */
    public Payment {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(currency, "currency");
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(createdAt, "createdAt");
    }
}
