package dev.retrysafe.jobs;

import dev.retrysafe.testkit.ThrowawayDatabase;

/** The jobs contract on an in-memory H2 database in PostgreSQL mode. */
class H2JobsTest extends JobsContract {

    @Override
    protected ThrowawayDatabase openDatabase() {
        return ThrowawayDatabase.h2("jobs");
    }
}
