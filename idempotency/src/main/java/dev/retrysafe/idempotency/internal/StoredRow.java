package dev.retrysafe.idempotency.internal;

import dev.retrysafe.idempotency.StoredResponse;
import org.jspecify.annotations.Nullable;

/** One row of {@code idempotency_keys} as read; {@code response} is null while in progress. */
record StoredRow(String fingerprint, String leaseToken, long leaseExpiresAt, long createdAt,
        @Nullable StoredResponse response) {

    boolean completed() {
        return response != null;
    }
}
