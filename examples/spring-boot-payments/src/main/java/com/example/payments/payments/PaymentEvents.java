package com.example.payments.payments;

import org.springframework.stereotype.Component;

/** The webhook events of payments, written to Retrysafe's outbox in the payment's own transaction. */
@Component
class PaymentEvents {

    /** Appends {@code payment.succeeded}. */
    void succeeded(Payment payment) {
        // filled in with the starter's WebhookPublisher
    }
}
