package dev.retrysafe.jobs;

import dev.retrysafe.testkit.ThrowawayDatabase;

/** Two instances on one in-memory H2 database (the embedded server's store), same guarantees. */
class TwoInstancesOnH2Test extends TwoInstancesContract {

    @Override
    protected ThrowawayDatabase openDatabase() {
        return ThrowawayDatabase.h2("jobs_two");
    }
}
