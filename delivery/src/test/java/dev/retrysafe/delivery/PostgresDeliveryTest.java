package dev.retrysafe.delivery;

import dev.retrysafe.testkit.ThrowawayDatabase;

/** The delivery contract on PostgreSQL; fails (never skips) when PostgreSQL is unreachable. */
class PostgresDeliveryTest extends DeliveryContract {

    @Override
    protected ThrowawayDatabase openDatabase() {
        return ThrowawayDatabase.postgres();
    }
}
