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
        return redis.storeAtTimeOf(clock).build();
    }

    @AfterEach
    void deleteKeys() {
        redis.close();
    }
}
