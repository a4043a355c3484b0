package dev.retrysafe.delivery;

import java.util.Objects;

/** What asking to retry one delivery now came to ({@code POST /v1/deliveries/{id}/retry}). */
public sealed interface RetryOutcome {

    /**
     * The delivery is pending and due now; any dispatcher picks it up.
     *
     * @param delivery the delivery after the change
     */
    record Retried(Delivery delivery) implements RetryOutcome {
        /** Checks presence. */
        public Retried {
            Objects.requireNonNull(delivery, "delivery");
        }
    }

    /** No such delivery in this account (another account's id is not found either). */
    record NotFound() implements RetryOutcome {
    }

    /**
     * The delivery succeeded or an attempt is under way, so it is not retried (answer {@code 409}).
     *
     * @param status its status
     */
    record NotRetryable(DeliveryStatus status) implements RetryOutcome {
        /** Checks presence. */
        public NotRetryable {
            Objects.requireNonNull(status, "status");
        }
    }
}
