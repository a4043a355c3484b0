package dev.retrysafe.ratelimit.redis;

import dev.retrysafe.ratelimit.RateLimitStore;
import dev.retrysafe.ratelimit.RateLimitStoreContract;
import dev.retrysafe.testkit.FakeClock;
import dev.retrysafe.testkit.RedisClusterProcess;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;

/**
 * The contract every store passes, run against a Redis Cluster of three masters with the test's
 * clock as explicit time: the same store, through a cluster client, whose partitions land on
 * different masters.
 */
class ClusterStoreContractTest extends RateLimitStoreContract {

    private static RedisClusterProcess cluster;
    private static TestRedis redis;

    @BeforeAll
    static void startCluster() {
        cluster = RedisClusterProcess.start();
        redis = TestRedis.connect(cluster);
    }

    @AfterAll
    static void stopCluster() {
        try {
            if (redis != null) {
                redis.close();
            }
        } finally {
            if (cluster != null) {
                cluster.close();
            }
        }
    }

    @Override
    protected RateLimitStore newStore(FakeClock clock) {
        return redis.storeAtTimeOf(clock).build();
    }

    @Override
    protected long keysStored() {
        return redis.keys().size();
    }

    @AfterEach
    void deleteKeys() {
        redis.deleteKeys();
    }
}
