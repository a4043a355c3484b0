package dev.retrysafe.ratelimit;

import dev.retrysafe.testkit.FakeClock;

/** The shadow-policy contract on the in-memory store. */
class InMemoryShadowPolicyTest extends ShadowPolicyContract {

    @Override
    protected RateLimitStore newStore(FakeClock clock) {
        return InMemoryRateLimitStore.builder().clock(clock).build();
    }
}
