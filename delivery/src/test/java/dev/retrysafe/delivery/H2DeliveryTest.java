package dev.retrysafe.delivery;

import dev.retrysafe.testkit.ThrowawayDatabase;

/** The delivery contract on an in-memory H2 database in PostgreSQL mode. */
class H2DeliveryTest extends PauseAndOrderingContract {

    @Override
    protected ThrowawayDatabase openDatabase() {
        return ThrowawayDatabase.h2("delivery");
    }
}
