package dev.retrysafe.delivery;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * An attempt as stored, with its delivery's place: what an {@link AttemptObserver} is told.
 * Immutable and threadsafe.
 *
 * @param accountId        the account owning the delivery
 * @param endpointId       the endpoint it went to
 * @param attempt          the attempt as the attempt log holds it
 * @param deliveryStatus   the delivery's status after this attempt ({@code pending} when another
 *                         attempt is scheduled), or {@code null} when the claim had run out and the
 *                         delivery belongs to another holder (the attempt is logged all the same)
 * @param endpointDisabled whether this attempt disabled the endpoint
 */
public record StoredAttempt(
        String accountId,
        String endpointId,
        DeliveryAttempt attempt,
        @Nullable DeliveryStatus deliveryStatus,
        boolean endpointDisabled) {

    /** Checks presence. */
    public StoredAttempt {
        Objects.requireNonNull(accountId, "accountId");
        Objects.requireNonNull(endpointId, "endpointId");
        Objects.requireNonNull(attempt, "attempt");
    }
}
