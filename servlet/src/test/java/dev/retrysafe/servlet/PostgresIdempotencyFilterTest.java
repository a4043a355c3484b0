package dev.retrysafe.servlet;

import dev.retrysafe.testkit.ThrowawayDatabase;

/** The filter end to end on PostgreSQL; fails (never skips) when PostgreSQL is unreachable. */
class PostgresIdempotencyFilterTest extends IdempotencyFilterContract {

    @Override
    protected ThrowawayDatabase openDatabase() {
        return ThrowawayDatabase.postgres();
    }
}
