package dev.retrysafe.ratelimit;

import dev.retrysafe.testkit.FakeClock;

/** The store contract on the in-memory store's buffered decision (the HTTP filter's path). */
class InMemoryBufferedDecisionTest extends RateLimitStoreContract {

    @Override
    protected RateLimitStore newStore(FakeClock clock) {
        return new BufferedStore(InMemoryRateLimitStore.builder().clock(clock).build());
    }

    @Override
    protected long keysStored() {
        return ((BufferedStore) store).inner.trackedKeys();
    }
}
