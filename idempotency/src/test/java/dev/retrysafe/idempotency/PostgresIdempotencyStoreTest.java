package dev.retrysafe.idempotency;

import dev.retrysafe.testkit.ThrowawayDatabase;

/** The store contract on PostgreSQL; fails (never skips) when PostgreSQL is unreachable. */
class PostgresIdempotencyStoreTest extends IdempotencyStoreContract {

    @Override
    protected ThrowawayDatabase openDatabase() {
        return ThrowawayDatabase.postgres();
    }
}
