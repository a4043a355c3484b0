package dev.retrysafe.delivery;

import java.util.Locale;
import java.util.Objects;

/** What asking to send one delivery again now came to ({@code POST /v1/deliveries/{id}/retry}). */
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
    record NotFound() implements RetryOutcome {}

    /**
     * The delivery was left as it is (answer {@code 409}).
     *
     * @param delivery the delivery as it stands
     * @param reason   why
     */
    record NotRetryable(Delivery delivery, Reason reason) implements RetryOutcome {
        /** Checks presence. */
        public NotRetryable {
            Objects.requireNonNull(delivery, "delivery");
            Objects.requireNonNull(reason, "reason");
        }

        /** The delivery's status. */
        public DeliveryStatus status() {
            return delivery.status();
        }
    }

    /** Why a delivery is not sent again. */
    enum Reason {
        /** An attempt is under way (status {@code delivering}); it ends within the sender's timeout. */
        ATTEMPT_UNDER_WAY,
        /** Its endpoint is disabled; enable the endpoint first. */
        ENDPOINT_DISABLED;

        /** The name in the API, e.g. {@code endpoint_disabled}. */
        public String wireName() {
            return name().toLowerCase(Locale.ROOT);
        }
    }
}
