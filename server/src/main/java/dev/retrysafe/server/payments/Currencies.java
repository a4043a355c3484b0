package dev.retrysafe.server.payments;

import java.util.Currency;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;

/** The currencies a payment may be made in: ISO 4217 codes, written in lower case. */
final class Currencies {

    /** From the JDK's ISO 4217 table, without "no currency" (XXX) and the testing code (XTS). */
    private static final Set<String> CODES = Currency.getAvailableCurrencies().stream()
            .map(c -> c.getCurrencyCode().toLowerCase(Locale.ROOT))
            .filter(code -> !code.equals("xxx") && !code.equals("xts"))
            .collect(Collectors.toUnmodifiableSet());

    private Currencies() {}

    static boolean isValid(String code) {
        return CODES.contains(code);
    }
}
