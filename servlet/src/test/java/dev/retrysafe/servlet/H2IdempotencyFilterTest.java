package dev.retrysafe.servlet;

import dev.retrysafe.testkit.ThrowawayDatabase;

/** The filter end to end on an in-memory H2 database in PostgreSQL mode. */
class H2IdempotencyFilterTest extends IdempotencyFilterContract {

    @Override
    protected ThrowawayDatabase openDatabase() {
        return ThrowawayDatabase.h2("filter");
    }
}
