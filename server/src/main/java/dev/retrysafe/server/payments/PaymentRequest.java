package dev.retrysafe.server.payments;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.retrysafe.server.http.BodyFields;
import dev.retrysafe.server.http.FieldError;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * A valid {@code POST /v1/payments} body.
 *
 * @param amount 1..99,999,999 minor units
 * @param currency lower-case ISO 4217 code
 * @param description at most 1000 characters, or {@code null}
 */
public record PaymentRequest(
        long amount, String currency, @Nullable String description) {

    /** Largest amount, in minor units. */
    public static final long MAX_AMOUNT = 99_999_999;
    /** Longest description. */
    public static final int MAX_DESCRIPTION = 1000;

    /** Validates {@code body}. */
    public static Validated<PaymentRequest> parse(ObjectNode body) {
        BodyFields f = new BodyFields(body, Set.of("amount", "currency", "description"));
        Long amount = f.integer("amount", true, 1, MAX_AMOUNT);
        String currency = f.string("currency", true, 3);
        if (currency != null && !Currencies.isValid(currency)) {
            f.reject("currency", "must be a lower-case ISO 4217 currency code such as eur or usd");
        }
        String description = f.string("description", false, MAX_DESCRIPTION);
        List<FieldError> errors = f.errors();
        if (!errors.isEmpty() || amount == null || currency == null) {
            return new Validated.Invalid<>(errors);
        }
        return new Validated.Valid<>(new PaymentRequest(amount, currency, description));
    }
}
