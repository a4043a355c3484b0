package dev.retrysafe.servlet;

import dev.retrysafe.idempotency.ClaimMode;
import dev.retrysafe.testkit.ThrowawayDatabase;

/** The filter end to end on PostgreSQL with advisory-lock claims; fails (never skips) without PostgreSQL. */
class PostgresAdvisoryIdempotencyFilterTest extends IdempotencyFilterContract {

    @Override
    protected ThrowawayDatabase openDatabase() {
        return ThrowawayDatabase.postgres();
    }

    @Override
    protected ClaimMode mode() {
        return ClaimMode.POSTGRES_ADVISORY_LOCKS;
    }
}
