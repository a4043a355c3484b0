package dev.retrysafe.idempotency.internal;

import java.time.Duration;

/**
 * The JDBC store's settings, checked once. Immutable and threadsafe.
 *
 * @param retention how long a stored answer is replayed; older ones count as absent
 * @param purgeBatchSize how many rows one purge transaction deletes at most
 */
public record StoreConfig(Duration retention, int purgeBatchSize) {

    /** Checks both settings. */
    public StoreConfig {
        checkRetention(retention);
        checkPurgeBatchSize(purgeBatchSize);
    }

    /** Rejects a retention that is not positive. */
    public static Duration checkRetention(Duration retention) {
        if (retention.isNegative() || retention.isZero()) {
            throw new IllegalArgumentException("retention must be positive: " + retention);
        }
        return retention;
    }

    /** Rejects a batch size outside 1..100000. */
    public static int checkPurgeBatchSize(int purgeBatchSize) {
        if (purgeBatchSize < 1 || purgeBatchSize > 100_000) {
            throw new IllegalArgumentException("purgeBatchSize must be 1 to 100000: " + purgeBatchSize);
        }
        return purgeBatchSize;
    }
}
