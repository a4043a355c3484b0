package dev.retrysafe.idempotency;

import java.time.Instant;

/** STUB (API only; to be completed). Where idempotency keys and their stored answers live. */
public interface IdempotencyStore {

    /** Deletes every key created before {@code cutoff}; returns how many were deleted. */
    int purge(Instant cutoff);
}
