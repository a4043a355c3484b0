package dev.retrysafe.server.payments;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * A payment.
 *
 * @param id {@code pay_...}
 * @param accountId the owner
 * @param amount in minor units (cents)
 * @param amountRefunded sum of its refunds
 * @param currency lower-case ISO 4217 code
 * @param status {@code succeeded} or {@code failed}
 * @param description free text, or {@code null}
 * @param createdAt when it was made
 */
public record Payment(
        String id,
        String accountId,
        long amount,
        long amountRefunded,
        String currency,
        String status,
        @Nullable String description,
        Instant createdAt) {

    /** Status of a payment the bank approved. */
    public static final String SUCCEEDED = "succeeded";
    /** Status of a payment the bank declined. */
    public static final String FAILED = "failed";

    /** What a refund may still take. */
    public long remaining() {
        return amount - amountRefunded;
    }

    /** The API representation. */
    public Map<String, @Nullable Object> json() {
        Map<String, @Nullable Object> m = new LinkedHashMap<>();
        m.put("id", id);
        m.put("object", "payment");
        m.put("amount", amount);
        m.put("amount_refunded", amountRefunded);
        m.put("currency", currency);
        m.put("status", status);
        m.put("description", description);
        m.put("created_at", Times.rfc3339(createdAt));
        return m;
    }
}
