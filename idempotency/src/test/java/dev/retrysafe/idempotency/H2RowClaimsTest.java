package dev.retrysafe.idempotency;

import dev.retrysafe.testkit.ThrowawayDatabase;

/** The transaction protocol with {@link ClaimMode#ROWS} on H2. */
class H2RowClaimsTest extends TransactionClaimsContract {

    @Override
    protected ThrowawayDatabase openDatabase() {
        return ThrowawayDatabase.h2("claims");
    }

    @Override
    protected ClaimMode mode() {
        return ClaimMode.ROWS;
    }
}
