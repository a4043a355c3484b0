package dev.retrysafe.server.events;

import dev.retrysafe.testkit.ThrowawayDatabase;

class StreamPositionsPostgresTest extends StreamPositionsContract {

    @Override
    protected ThrowawayDatabase openDatabase() {
        return ThrowawayDatabase.postgres();
    }
}
