package com.example.payments.payments;

import com.example.payments.Ids;
import com.example.payments.api.NotFoundException;
import com.example.payments.bank.Bank;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Propagation;
import org.springframework.transaction.annotation.Transactional;

/** Makes and reads payments. Threadsafe. */
@Service
public class PaymentService {

    private final Bank bank;
    private final PaymentStore store;
    private final PaymentEvents events;
    private final Ids ids;
    private final Clock clock;
    private final String failWhenDescription;

    PaymentService(
            Bank bank,
            PaymentStore store,
            PaymentEvents events,
            Ids ids,
            Clock clock,
            @Value("${payments.demo.fail-after-insert-when-description:}") String failWhenDescription) {
        this.bank = bank;
        this.store = store;
        this.events = events;
        this.ids = ids;
        this.clock = clock;
        this.failWhenDescription = failWhenDescription;
    }

    /**
     * Charges the bank, records the payment and its {@code payment.succeeded} event, in the
     * caller's transaction (the controller's, which Retrysafe's stored answer joins).
     *
     * @param idempotencyKey the request's key: the bank is asked with a key derived from it, so a
     *     retry after a crash does not charge twice
     */
    @Transactional(propagation = Propagation.MANDATORY)
    public Payment create(String accountId, PaymentRequest request, @Nullable String idempotencyKey) {
        String id = ids.next("pay_");
        String chargeKey = Bank.chargeKey(accountId, idempotencyKey != null ? idempotencyKey : id);
        if (!bank.charge(chargeKey, accountId, request.amount(), request.currency())) {
            throw new ChargeKeyReusedException();
        }
        Instant now = clock.instant().truncatedTo(ChronoUnit.MILLIS);
        Payment payment = new Payment(
                id, accountId, request.amount(), request.currency(), Payment.SUCCEEDED, request.description(), now);
        store.insert(payment, idempotencyKey);
        events.succeeded(payment);
        if (!failWhenDescription.isEmpty() && failWhenDescription.equals(request.description())) {
            // the demonstration of a failure after the writes: the payment, its event and the
            // stored answer all roll back with the transaction, and the key is free for a retry
            throw new IllegalStateException("failing after the insert, as payments.demo asks");
        }
        return payment;
    }

    /** The account's payment {@code id}; another account's is not found, like an unknown one. */
    @Transactional(readOnly = true)
    public Payment find(String accountId, String id) {
        return (Ids.looksLike("pay_", id) ? store.find(accountId, id) : java.util.Optional.<Payment>empty())
                .orElseThrow(() -> new NotFoundException("payment"));
    }

    /** A page of the account's payments, newest first; {@code has_more} when older ones follow. */
    @Transactional(readOnly = true)
    public PageOf page(String accountId, int limit, @Nullable String startingAfter) {
        List<Payment> found = store.page(accountId, limit, startingAfter);
        boolean more = found.size() > limit;
        return new PageOf(more ? found.subList(0, limit) : found, more);
    }

    /**
     * One page of payments.
     *
     * @param payments newest first
     * @param hasMore whether older ones follow
     */
    public record PageOf(List<Payment> payments, boolean hasMore) {}
}
