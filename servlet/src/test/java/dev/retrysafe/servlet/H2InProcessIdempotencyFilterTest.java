package dev.retrysafe.servlet;

import dev.retrysafe.idempotency.ClaimMode;
import dev.retrysafe.testkit.ThrowawayDatabase;

/** The filter end to end on H2 with claims held in process (the embedded database's mode). */
class H2InProcessIdempotencyFilterTest extends IdempotencyFilterContract {

    @Override
    protected ThrowawayDatabase openDatabase() {
        return ThrowawayDatabase.h2("filter-inproc");
    }

    @Override
    protected ClaimMode mode() {
        return ClaimMode.IN_PROCESS;
    }
}
