package dev.retrysafe.spring.internal;

import dev.retrysafe.ratelimit.RateLimitStore;
import dev.retrysafe.ratelimit.redis.RedisRateLimitStore;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.SslVerifyMode;
import io.lettuce.core.cluster.RedisClusterClient;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import org.jspecify.annotations.Nullable;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The Redis rate-limit store on the application's own Redis: the Lettuce client of Spring Data
 * Redis's {@link LettuceConnectionFactory}, so that {@code spring.data.redis.*} is the only Redis
 * configuration. The store opens one connection of its own on that client (its scripts and
 * timeouts are its own) and closes only that; the client stays the factory's. Loaded only when
 * Spring Data Redis and ratelimit-redis are on the classpath. Stateless.
 */
public final class SpringDataRedisStores {

    private SpringDataRedisStores() {}

    /**
     * A store on {@code factory}'s client, started first if the application has not started it.
     *
     * @throws IllegalStateException for a Sentinel or static master/replica setup, which the store
     *     cannot follow through a borrowed client (set {@code retrysafe.rate-limits.redis.url})
     */
    public static RateLimitStore store(
            LettuceConnectionFactory factory, String keyPrefix, Duration timeout, int fallbackInstances) {
        if (factory.isRedisSentinelAware()) {
            throw new IllegalStateException("retrysafe.rate-limits.store=redis cannot use Spring Data Redis's"
                    + " Sentinel connection factory; set retrysafe.rate-limits.redis.url");
        }
        AbstractRedisClient client = factory.getNativeClient();
        if (client == null) {
            factory.start(); // a factory with early start-up off makes its client on start
            client = factory.getRequiredNativeClient();
        }
        RedisRateLimitStore.Builder builder = RedisRateLimitStore.builder()
                .keyPrefix(keyPrefix)
                .commandTimeout(timeout)
                .fallbackInstances(fallbackInstances);
        if (client instanceof RedisClusterClient cluster) {
            builder.redisClusterClient(cluster);
        } else if (client instanceof RedisClient standalone) {
            RedisStandaloneConfiguration standaloneConfiguration = factory.getStandaloneConfiguration();
            builder.redisClient(
                    standalone,
                    uri(
                            factory.isUseSsl(),
                            factory.isStartTls(),
                            factory.getClientConfiguration().getVerifyMode(),
                            factory.getHostName(),
                            factory.getPort(),
                            factory.getDatabase(),
                            standaloneConfiguration.getUsername(),
                            standaloneConfiguration.getPassword().toOptional().orElse(null)));
        } else {
            throw new IllegalStateException("retrysafe.rate-limits.store=redis cannot use a "
                    + client.getClass().getName() + "; set retrysafe.rate-limits.redis.url");
        }
        return builder.build();
    }

    /**
     * The Lettuce URI of a standalone Redis, credentials included (and escaped): the connection
     * the store opens on the borrowed client goes where the factory's go, with its credentials.
     */
    static String uri(
            boolean ssl,
            boolean startTls,
            SslVerifyMode verifyMode,
            String host,
            int port,
            int database,
            @Nullable String username,
            char @Nullable [] password) {
        String userInfo = null;
        if (password != null && password.length > 0) {
            userInfo = (username == null ? "" : username) + ":" + new String(password);
        }
        String scheme = !ssl ? "redis" : startTls ? "redis+tls" : "rediss";
        String query = ssl && verifyMode != SslVerifyMode.FULL ? "verifyPeer=" + verifyMode.name() : null;
        try {
            return new URI(scheme, userInfo, host, port, "/" + database, query, null).toASCIIString();
        } catch (URISyntaxException e) {
            // the message would carry the password: name the host only
            throw new IllegalStateException("Spring Data Redis's host cannot be a Redis URI: " + host, e);
        }
    }
}
