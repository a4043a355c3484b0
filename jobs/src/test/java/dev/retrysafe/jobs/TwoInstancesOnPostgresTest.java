package dev.retrysafe.jobs;

import dev.retrysafe.testkit.ThrowawayDatabase;

/** Two instances on one PostgreSQL database; fails (never skips) when PostgreSQL is unreachable. */
class TwoInstancesOnPostgresTest extends TwoInstancesContract {

    @Override
    protected ThrowawayDatabase openDatabase() {
        return ThrowawayDatabase.postgres();
    }
}
