package dev.retrysafe.server.payments;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * A refund of (part of) a payment.
 *
 * @param id {@code re_...}
 * @param accountId the owner
 * @param paymentId the refunded payment
 * @param amount in minor units
 * @param status {@code succeeded}
 * @param createdAt when it was made
 */
public record Refund(String id, String accountId, String paymentId, long amount, String status, Instant createdAt) {

    /** The API representation. */
    public Map<String, @Nullable Object> json() {
        Map<String, @Nullable Object> m = new LinkedHashMap<>();
        m.put("id", id);
        m.put("object", "refund");
        m.put("payment_id", paymentId);
        m.put("amount", amount);
        m.put("status", status);
        m.put("created_at", Times.rfc3339(createdAt));
        return m;
    }
}
