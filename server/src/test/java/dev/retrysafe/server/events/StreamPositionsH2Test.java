package dev.retrysafe.server.events;

import dev.retrysafe.testkit.ThrowawayDatabase;

class StreamPositionsH2Test extends StreamPositionsContract {

    @Override
    protected ThrowawayDatabase openDatabase() {
        return ThrowawayDatabase.h2("stream_positions");
    }
}
