package dev.retrysafe.idempotency;

import dev.retrysafe.testkit.ThrowawayDatabase;

/** The transaction protocol with {@link ClaimMode#ROWS} on PostgreSQL; fails (never skips) without it. */
class PostgresRowClaimsTest extends TransactionClaimsContract {

    @Override
    protected ThrowawayDatabase openDatabase() {
        return ThrowawayDatabase.postgres();
    }

    @Override
    protected ClaimMode mode() {
        return ClaimMode.ROWS;
    }
}
