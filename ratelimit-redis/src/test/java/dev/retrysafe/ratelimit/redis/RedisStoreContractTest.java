package dev.retrysafe.ratelimit.redis;

import dev.retrysafe.ratelimit.RateLimitStore;
import dev.retrysafe.ratelimit.RateLimitStoreContract;
import dev.retrysafe.testkit.FakeClock;
import org.junit.jupiter.api.AfterEach;

/** The contract every store passes, run against Redis with the test's clock as explicit time. */
class RedisStoreContractTest extends RateLimitStoreContract {

    private TestRedis redis;

    @Override
    protected RateLimitStore newStore(FakeClock clock) {
        redis = TestRedis.connect();
        return configure(redis.storeAtTimeOf(clock)).build();
    }

    @Override
    protected long keysStored() {
        return redis.keys().size();
    }

    /** The store as this suite runs it: with the builder's defaults (a lone decision goes over the direct connection). */
    protected RedisRateLimitStore.Builder configure(RedisRateLimitStore.Builder store) {
        return store;
    }

    @AfterEach
    void deleteKeys() {
        redis.close();
    }
}
