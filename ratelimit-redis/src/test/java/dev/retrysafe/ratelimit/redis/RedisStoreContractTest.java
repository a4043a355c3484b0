package dev.retrysafe.ratelimit.redis;

import dev.retrysafe.ratelimit.RateLimitStore;
import dev.retrysafe.ratelimit.RateLimitStoreContract;
import dev.retrysafe.testkit.FakeClock;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;

/** The contract every store passes, run against Redis with the test's clock as explicit time. */
class RedisStoreContractTest extends RateLimitStoreContract {

    private TestRedis redis;

    @Override
    protected RateLimitStore newStore(FakeClock clock) {
        redis = TestRedis.connect();
        return redis.store()
                .timeSource(clock)
                // the test's time does not pass with Redis's: keys must not expire by Redis's
                .minimumKeyTtl(Duration.ofHours(1))
                // agreement, not latency, is tested here: a GC pause must not turn into "unknown"
                .commandTimeout(Duration.ofSeconds(5))
                .build();
    }

    @AfterEach
    void deleteKeys() {
        redis.close();
    }
}
