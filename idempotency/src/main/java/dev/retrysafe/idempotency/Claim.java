package dev.retrysafe.idempotency;

import java.time.Instant;

/**
 * The right, held by one request, to run the operation of a scope. The random token identifies
 * this holder: completing or releasing succeeds only while the stored row still carries it, so a
 * holder whose lease was taken over can never overwrite the new holder's work. Immutable and
 * threadsafe.
 *
 * @param scope the scope claimed
 * @param fingerprint the fingerprint of the request that holds the claim
 * @param token the random token of this claim
 * @param leaseExpiresAt when another request may take the claim over
 */
public record Claim(Scope scope, Fingerprint fingerprint, String token, Instant leaseExpiresAt) {

    /** Checks that the token is present. */
    public Claim {
        if (token.isEmpty()) {
            throw new IllegalArgumentException("token must not be empty");
        }
    }
}
