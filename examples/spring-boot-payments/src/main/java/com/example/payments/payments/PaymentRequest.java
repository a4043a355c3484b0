package com.example.payments.payments;

import com.example.payments.api.FieldError;
import com.example.payments.api.InvalidRequestException;
import java.util.ArrayList;
import java.util.Currency;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * A valid {@code POST /v1/payments} body, checked by the Retrysafe server's rules: every bad
 * field is reported at once.
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

    private static final Set<String> FIELDS = Set.of("amount", "currency", "description");
    private static final Set<String> CURRENCIES = Currency.getAvailableCurrencies().stream()
            .map(c -> c.getCurrencyCode().toLowerCase(Locale.ROOT))
            .filter(code -> !code.equals("xxx") && !code.equals("xts"))
            .collect(Collectors.toUnmodifiableSet());

    /**
     * Validates a JSON object read as a map.
     *
     * @throws InvalidRequestException naming every invalid field
     */
    public static PaymentRequest parse(Map<String, @Nullable Object> body) {
        List<FieldError> errors = new ArrayList<>();
        body.keySet().stream()
                .filter(name -> !FIELDS.contains(name))
                .sorted()
                .forEach(name -> errors.add(new FieldError(name, "is not a known field")));
        Long amount = amount(body.get("amount"), errors);
        String currency = string("currency", body.get("currency"), true, 3, errors);
        if (currency != null && !CURRENCIES.contains(currency)) {
            errors.add(new FieldError("currency", "must be a lower-case ISO 4217 currency code such as eur or usd"));
        }
        String description = string("description", body.get("description"), false, MAX_DESCRIPTION, errors);
        if (!errors.isEmpty() || amount == null || currency == null) {
            throw new InvalidRequestException(errors);
        }
        return new PaymentRequest(amount, currency, description);
    }

    private static @Nullable Long amount(@Nullable Object value, List<FieldError> errors) {
        if (value == null) {
            errors.add(new FieldError("amount", "is required"));
            return null;
        }
        if (!(value instanceof Integer || value instanceof Long || value instanceof java.math.BigInteger)) {
            errors.add(new FieldError("amount", "must be an integer (minor units, e.g. cents)"));
            return null;
        }
        Number n = (Number) value;
        if (n instanceof java.math.BigInteger || n.longValue() < 1 || n.longValue() > MAX_AMOUNT) {
            errors.add(new FieldError("amount", "must be between 1 and " + MAX_AMOUNT));
            return null;
        }
        return n.longValue();
    }

    private static @Nullable String string(
            String name, @Nullable Object value, boolean required, int maxLength, List<FieldError> errors) {
        if (value == null) {
            if (required) {
                errors.add(new FieldError(name, "is required"));
            }
            return null;
        }
        if (!(value instanceof String s)) {
            errors.add(new FieldError(name, "must be a string"));
            return null;
        }
        if (s.length() > maxLength) {
            errors.add(new FieldError(name, "must be at most " + maxLength + " characters long"));
            return null;
        }
        if (s.chars().anyMatch(ch -> Character.isISOControl(ch) && ch != '\t' && ch != '\n' && ch != '\r')) {
            errors.add(new FieldError(name, "must not contain control characters (other than tab and line breaks)"));
            return null;
        }
        return s;
    }
}
