package dev.retrysafe.delivery.internal;

import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * One claimed delivery with what its attempt needs: for an endpoint with a rate limit, the
 * reserved slot before which the attempt must not start ({@code null}: at once). Holds secrets:
 * never logged (toString leaves them out). {@code orderingKey} is set for a delivery numbered in
 * its key of an ordered endpoint only: its finish makes the next of the key due ({@link KeyOrder}).
 */
record Claimed(
        String id,
        String endpointId,
        String accountId,
        byte[] payload,
        int attempts,
        Instant createdAt,
        String url,
        String secret,
        @Nullable String previousSecret,
        @Nullable Instant previousSecretExpiresAt,
        String leaseToken,
        @Nullable Instant slot,
        @Nullable String orderingKey) {

    @Override
    public String toString() {
        return "Claimed[id=" + id + ", endpointId=" + endpointId + ", attempts=" + attempts + "]";
    }

    @Override
    public boolean equals(@Nullable Object other) {
        return other instanceof Claimed that && id.equals(that.id) && leaseToken.equals(that.leaseToken);
    }

    @Override
    public int hashCode() {
        return id.hashCode();
    }
}
