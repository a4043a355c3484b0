package dev.retrysafe.jobs;

import dev.retrysafe.testkit.ThrowawayDatabase;

/** The jobs contract on PostgreSQL; fails (never skips) when PostgreSQL is unreachable. */
class PostgresJobsTest extends JobsContract {

    @Override
    protected ThrowawayDatabase openDatabase() {
        return ThrowawayDatabase.postgres();
    }
}
