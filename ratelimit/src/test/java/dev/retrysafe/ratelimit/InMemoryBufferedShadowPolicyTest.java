package dev.retrysafe.ratelimit;

import dev.retrysafe.testkit.FakeClock;

/** The shadow-policy contract on the in-memory store's buffered decision. */
class InMemoryBufferedShadowPolicyTest extends ShadowPolicyContract {

    @Override
    protected RateLimitStore newStore(FakeClock clock) {
        return new BufferedStore(InMemoryRateLimitStore.builder().clock(clock).build());
    }
}
