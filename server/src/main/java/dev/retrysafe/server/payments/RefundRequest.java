package dev.retrysafe.server.payments;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.retrysafe.server.db.Ids;
import dev.retrysafe.server.http.BodyFields;
import dev.retrysafe.server.http.FieldError;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * A valid {@code POST /v1/refunds} body.
 *
 * @param paymentId the payment to refund
 * @param amount minor units, or {@code null} for everything that remains
 */
public record RefundRequest(String paymentId, @Nullable Long amount) {

    /** Validates {@code body}. */
    public static Validated<RefundRequest> parse(ObjectNode body) {
        BodyFields f = new BodyFields(body, Set.of("payment_id", "amount"));
        String paymentId = f.string("payment_id", true, 64);
        if (paymentId != null && !Ids.looksLike("pay_", paymentId)) {
            f.reject("payment_id", "must be a payment id (pay_...)");
        }
        Long amount = f.integer("amount", false, 1, PaymentRequest.MAX_AMOUNT);
        List<FieldError> errors = f.errors();
        if (!errors.isEmpty() || paymentId == null) {
            return new Validated.Invalid<>(errors);
        }
        return new Validated.Valid<>(new RefundRequest(paymentId, amount));
    }
}
