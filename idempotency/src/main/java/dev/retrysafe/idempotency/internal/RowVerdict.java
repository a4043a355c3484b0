package dev.retrysafe.idempotency.internal;

import dev.retrysafe.idempotency.Fingerprint;
import org.jspecify.annotations.Nullable;

/**
 * What a key's row, as read, means for a request with a given fingerprint. One decision shared by
 * every claim mode, so that they answer alike.
 */
enum RowVerdict {
    /** No row: the key is new. */
    FREE,
    /** A stored answer of the same request, within retention. */
    REPLAY,
    /**
     * A different request: a stored answer, a claim still held, or a claim whose dead holder may
     * have had effects outside the database (a charge) under this key.
     */
    MISMATCH,
    /** The same request, claimed and its lease still running. */
    IN_FLIGHT,
    /** A stored answer past retention: counts as absent, and is replaced. */
    EXPIRED_ANSWER,
    /** The same request, claimed by a holder whose lease ran out: taken over. */
    ABANDONED;

    static RowVerdict of(@Nullable StoredRow row, Fingerprint fingerprint, long nowMillis, long retentionCutoff) {
        if (row == null) {
            return FREE;
        }
        boolean same = row.fingerprint().equals(fingerprint.hex());
        if (row.completed()) {
            if (row.createdAt() < retentionCutoff) {
                return EXPIRED_ANSWER;
            }
            return same ? REPLAY : MISMATCH;
        }
        if (!same) {
            return MISMATCH;
        }
        return row.leaseExpiresAt() < nowMillis ? ABANDONED : IN_FLIGHT;
    }
}
