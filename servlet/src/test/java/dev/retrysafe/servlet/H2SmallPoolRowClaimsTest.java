package dev.retrysafe.servlet;

import dev.retrysafe.testkit.ThrowawayDatabase;

/** One pooled connection per keyed request with claim rows, on H2. */
class H2SmallPoolRowClaimsTest extends SmallPoolRowClaimsContract {

    @Override
    protected ThrowawayDatabase openDatabase() {
        return ThrowawayDatabase.h2("small-pool");
    }
}
