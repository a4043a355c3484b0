package dev.retrysafe.spring.internal;

import dev.retrysafe.ratelimit.RateLimitStore;
import dev.retrysafe.ratelimit.redis.RedisRateLimitStore;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * The Redis rate-limit store on a Lettuce client of its own, from {@code redis.url}: for an
 * application without Spring Data Redis's Lettuce factory, or that names another Redis
 * ({@link SpringDataRedisStores} borrows the factory's client). Stateless.
 */
public final class RedisStores {

    private RedisStores() {}

    /**
     * A Redis store at {@code url}; a fail-local policy's quota is shared by
     * {@code fallbackInstances} while Redis cannot be reached.
     *
     * @throws IllegalStateException if the url is missing or ratelimit-redis is not on the classpath
     */
    public static RateLimitStore store(
            @Nullable String url, String keyPrefix, Duration timeout, int fallbackInstances) {
        if (url == null || url.isBlank()) {
            throw new IllegalStateException(
                    "retrysafe.rate-limits.store=redis needs retrysafe.rate-limits.redis.url (redis://host:port),"
                            + " or Spring Data Redis with Lettuce (spring-boot-starter-data-redis), whose"
                            + " connection factory it then uses");
        }
        try {
            Class.forName(
                    "dev.retrysafe.ratelimit.redis.RedisRateLimitStore", false, RedisStores.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException(
                    "retrysafe.rate-limits.store=redis needs dev.retrysafe:retrysafe-ratelimit-redis"
                            + " on the classpath",
                    e);
        }
        return RedisRateLimitStore.builder()
                .redisUri(url)
                .keyPrefix(keyPrefix)
                .commandTimeout(timeout)
                .fallbackInstances(fallbackInstances)
                .build();
    }
}
