package dev.retrysafe.server.payments;

import dev.retrysafe.leasedwork.Pipeline;
import dev.retrysafe.server.accounts.Account;
import dev.retrysafe.server.bank.Bank;
import dev.retrysafe.server.bank.ChargeKeys;
import dev.retrysafe.server.bank.ChargeOutcome;
import dev.retrysafe.server.db.Ids;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import org.jspecify.annotations.Nullable;

/** Creates payments: charge the bank, record the payment and its event. This class is threadsafe. */
public final class Payments {

    /** What creating a payment led to. */
    public sealed interface Outcome permits Created, BankUnavailable, ChargeKeyReused {}

    /** Recorded (succeeded or failed). @param payment the payment */
    public record Created(Payment payment) implements Outcome {}

    /** The bank could not process the charge; nothing happened. */
    public record BankUnavailable() implements Outcome {}

    /**
     * The bank knows this idempotency key for another amount or currency (a key reused after a
     * failed first try with a different body); nothing was charged or recorded.
     */
    public record ChargeKeyReused() implements Outcome {}

    private final Bank bank;
    private final Ids ids;
    private final Events events;
    private final Clock clock;

    /** Payments charging {@code bank}. */
    public Payments(Bank bank, Ids ids, Clock clock) {
        this.bank = bank;
        this.ids = ids;
        this.events = new Events(ids);
        this.clock = clock;
    }

    /**
     * Creates a payment in the transaction of {@code c}. The bank is asked with a charge key
     * derived from the idempotency key, so a retry that reaches here again (after a crash or a
     * 5xx) does not charge twice; without a key (filter off) every call is a new charge.
     */
    public Outcome create(Connection c, Account account, PaymentRequest request, @Nullable String idempotencyKey)
            throws SQLException, InterruptedException {
        String id = ids.next("pay_");
        String chargeKey = ChargeKeys.derive(account.id(), idempotencyKey != null ? idempotencyKey : id);
        ChargeOutcome charged = bank.charge(chargeKey, account.id(), request.amount(), request.currency());
        if (charged == ChargeOutcome.UNAVAILABLE) {
            return new BankUnavailable();
        }
        if (charged == ChargeOutcome.KEY_REUSED) {
            return new ChargeKeyReused();
        }
        Instant now = Times.now(clock);
        String status = charged == ChargeOutcome.APPROVED ? Payment.SUCCEEDED : Payment.FAILED;
        Payment payment = new Payment(
                id, account.id(), request.amount(), 0, request.currency(), status, request.description(), now);
        // on PostgreSQL the payment, its event and the lookup of the endpoints it goes to: one round trip
        Pipeline p = Pipeline.on(c);
        PaymentStore.insert(p, payment, idempotencyKey);
        events.append(
                p,
                account.id(),
                status.equals(Payment.SUCCEEDED) ? Events.PAYMENT_SUCCEEDED : Events.PAYMENT_FAILED,
                now,
                payment.json(),
                payment.id());
        p.flush(); // nothing is held back after an event; kept so that a change above cannot lose a write
        return new Created(payment);
    }
}
