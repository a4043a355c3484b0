package dev.retrysafe.ratelimit.redis;

/** The contract with every decision going through Lettuce (no direct connection). */
class LettuceOnlyStoreContractTest extends RedisStoreContractTest {

    @Override
    protected RedisRateLimitStore.Builder configure(RedisRateLimitStore.Builder store) {
        return store.directConnection(false);
    }
}
