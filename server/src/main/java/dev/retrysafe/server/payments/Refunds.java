package dev.retrysafe.server.payments;

import dev.retrysafe.leasedwork.Pipeline;
import dev.retrysafe.server.accounts.Account;
import dev.retrysafe.server.db.Ids;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.util.Optional;

/** Creates refunds, never more than what remains of a payment. This class is threadsafe. */
public final class Refunds {

    /** What asking for a refund led to. */
    public sealed interface Outcome permits Created, PaymentNotFound, NotRefundable, ExceedsRemaining {}

    /** Refunded. @param refund the refund */
    public record Created(Refund refund) implements Outcome {}

    /** No such payment in this account. */
    public record PaymentNotFound() implements Outcome {}

    /** The payment failed, so there is nothing to refund. @param status its status */
    public record NotRefundable(String status) implements Outcome {}

    /** More than remains was asked. @param remaining what remains */
    public record ExceedsRemaining(long remaining) implements Outcome {}

    private final Ids ids;
    private final Events events;
    private final Clock clock;

    /** Refunds stamped by {@code clock}. */
    public Refunds(Ids ids, Clock clock) {
        this.ids = ids;
        this.events = new Events(ids);
        this.clock = clock;
    }

    /** Refunds in the transaction of {@code c}, holding the payment's row lock until it ends. */
    public Outcome create(Connection c, Account account, RefundRequest request) throws SQLException {
        Optional<Payment> locked = PaymentStore.lock(c, account.id(), request.paymentId());
        if (locked.isEmpty()) {
            return new PaymentNotFound();
        }
        Payment payment = locked.get();
        if (!payment.status().equals(Payment.SUCCEEDED)) {
            return new NotRefundable(payment.status());
        }
        long amount = request.amount() != null ? request.amount() : payment.remaining();
        if (amount > payment.remaining()
                || amount < 1
                || !PaymentStore.addRefunded(c, account.id(), payment.id(), amount)) {
            return new ExceedsRemaining(payment.remaining());
        }
        Refund refund = new Refund(ids.next("re_"), account.id(), payment.id(), amount, "succeeded", Times.now(clock));
        RefundStore.insert(c, refund);
        events.append(
                Pipeline.immediate(c),
                account.id(),
                Events.REFUND_CREATED,
                refund.createdAt(),
                refund.json(),
                payment.id());
        return new Created(refund);
    }
}
