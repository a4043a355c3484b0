package com.example.payments.payments;

import dev.retrysafe.spring.WebhookPublisher;
import org.springframework.stereotype.Component;

/**
 * The webhook events of payments, written to Retrysafe's outbox in the payment's own transaction:
 * the event is delivered if and only if the payment commits.
 */
@Component
class PaymentEvents {

    private final WebhookPublisher publisher;

    PaymentEvents(WebhookPublisher publisher) {
        this.publisher = publisher;
    }

    /** Appends {@code payment.succeeded} for the payment's account. */
    void succeeded(Payment payment) {
        publisher.publishTo(payment.accountId(), "payment.succeeded", payment.json());
    }
}
