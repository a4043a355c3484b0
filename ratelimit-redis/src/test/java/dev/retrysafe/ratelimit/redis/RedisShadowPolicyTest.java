package dev.retrysafe.ratelimit.redis;

import dev.retrysafe.ratelimit.RateLimitStore;
import dev.retrysafe.ratelimit.ShadowPolicyContract;
import dev.retrysafe.testkit.FakeClock;
import org.junit.jupiter.api.AfterEach;

/** The shadow-policy contract on Redis, with the test's clock as explicit time. */
class RedisShadowPolicyTest extends ShadowPolicyContract {

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
