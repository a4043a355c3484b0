package dev.retrysafe.idempotency;

import dev.retrysafe.testkit.ThrowawayDatabase;

/** The store contract on an in-memory H2 database in PostgreSQL mode. */
class H2IdempotencyStoreTest extends IdempotencyStoreContract {

    @Override
    protected ThrowawayDatabase openDatabase() {
        return ThrowawayDatabase.h2("idem");
    }
}
