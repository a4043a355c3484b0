package dev.retrysafe.delivery.internal;

import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * One claimed delivery with what its attempt needs: for an endpoint with a rate limit, the
 * reserved slot before which the attempt must not start ({@code null}: at once); the trace context
 * of the request that caused the event and the endpoint's custom headers (stored form of
 * {@link CustomHeaders}), each sent on the attempt ({@code null}: none). Holds secrets (the signing
 * secrets, the custom headers): never logged (toString leaves them out). {@code orderingKey} is
 * set for a delivery numbered in its key of an ordered endpoint only: its finish makes the next of
 * the key due ({@link KeyOrder}).
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
        @Nullable String orderingKey,
        @Nullable String traceparent,
        @Nullable String customHeaders) {

    /** A claimed delivery without ordering key, trace context or custom headers. */
    Claimed(
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
            @Nullable Instant slot) {
        this(
                id,
                endpointId,
                accountId,
                payload,
                attempts,
                createdAt,
                url,
                secret,
                previousSecret,
                previousSecretExpiresAt,
                leaseToken,
                slot,
                null,
                null,
                null);
    }

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
