package com.example.payments.payments;

import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * A payment, as the Retrysafe server has it.
 *
 * @param id {@code pay_...}
 * @param accountId the owner
 * @param amount in minor units (cents)
 * @param currency lower-case ISO 4217 code
 * @param status {@code succeeded}
 * @param description free text, or {@code null}
 * @param createdAt when it was made (milliseconds)
 */
public record Payment(
        String id,
        String accountId,
        long amount,
        String currency,
        String status,
        @Nullable String description,
        Instant createdAt) {

    /** Status of a payment the bank took. */
    public static final String SUCCEEDED = "succeeded";

    /** The API representation, member for member the server's. */
    public Map<String, @Nullable Object> json() {
        Map<String, @Nullable Object> m = new LinkedHashMap<>();
        m.put("id", id);
        m.put("object", "payment");
        m.put("amount", amount);
        m.put("amount_refunded", 0L);
        m.put("currency", currency);
        m.put("status", status);
        m.put("description", description);
        m.put("created_at", DateTimeFormatter.ISO_INSTANT.format(createdAt));
        return m;
    }
}
