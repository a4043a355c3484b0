package dev.retrysafe.ratelimit.redis;

/** The concurrency store's tests with every call going through Lettuce (no direct connection). */
class LettuceOnlyConcurrencyStoreTest extends RedisConcurrencyStoreTest {

    @Override
    protected RedisConcurrencyStore.Builder configure(RedisConcurrencyStore.Builder store) {
        return store.directConnection(false);
    }
}
