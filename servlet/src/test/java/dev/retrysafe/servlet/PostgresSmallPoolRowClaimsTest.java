package dev.retrysafe.servlet;

import dev.retrysafe.testkit.ThrowawayDatabase;

/** One pooled connection per keyed request with claim rows, on PostgreSQL; fails (never skips) when it is unreachable. */
class PostgresSmallPoolRowClaimsTest extends SmallPoolRowClaimsContract {

    @Override
    protected ThrowawayDatabase openDatabase() {
        return ThrowawayDatabase.postgres();
    }
}
