package dev.retrysafe.spring.internal;

import dev.retrysafe.ratelimit.RateLimitStore;
import dev.retrysafe.ratelimit.redis.RedisRateLimitStore;

/** Reads the Redis store's state; loaded only when ratelimit-redis is on the classpath. Stateless. */
final class RedisHealth {

    private static final boolean PRESENT = present();

    private RedisHealth() {}

    static boolean isRedis(RateLimitStore store) {
        return PRESENT && Check.isRedis(store);
    }

    static boolean breakerOpen(RateLimitStore store) {
        return Check.breakerOpen(store);
    }

    private static boolean present() {
        try {
            Class.forName(
                    "dev.retrysafe.ratelimit.redis.RedisRateLimitStore", false, RedisHealth.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }

    private static final class Check {
        static boolean isRedis(RateLimitStore store) {
            return store instanceof RedisRateLimitStore;
        }

        static boolean breakerOpen(RateLimitStore store) {
            return ((RedisRateLimitStore) store).breakerOpen();
        }
    }
}
