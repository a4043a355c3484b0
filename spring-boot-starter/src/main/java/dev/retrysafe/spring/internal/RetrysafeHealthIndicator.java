package dev.retrysafe.spring.internal;

import dev.retrysafe.ratelimit.RateLimitStore;
import java.sql.Connection;
import java.sql.Statement;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * Health {@code retrysafe}: down when a Retrysafe table cannot be read; with the Redis rate-limit
 * store, detail {@code redis}: {@code ok}, or {@link #DEGRADED} while its circuit breaker is open
 * (after five failed decisions in a row, until a probe gets through). It stays up then: the
 * policies fail open or closed by themselves, as the server's {@code /ready} says
 * {@code degraded}; Spring Data Redis's own {@code redis} health, when the store uses its
 * connection factory, says {@code DOWN}. Threadsafe.
 */
public final class RetrysafeHealthIndicator extends AbstractHealthIndicator {

    /** The Redis detail while the store's circuit breaker keeps decisions away from Redis. */
    public static final String DEGRADED = "degraded: unreachable, policies follow their fail mode";

    private final DataSource dataSource;
    private final @Nullable RateLimitStore rateLimitStore;

    /** Checks the tables on {@code dataSource} and, if it is Redis, {@code rateLimitStore}. */
    public RetrysafeHealthIndicator(DataSource dataSource, @Nullable RateLimitStore rateLimitStore) {
        super("Retrysafe health check failed");
        this.dataSource = dataSource;
        this.rateLimitStore = rateLimitStore;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) throws Exception {
        try (Connection connection = dataSource.getConnection();
                Statement statement = connection.createStatement()) {
            for (String table : RetrysafeSchema.TABLES) {
                statement
                        .executeQuery("SELECT 1 FROM " + table + " WHERE 1 = 0")
                        .close();
            }
        }
        builder.up().withDetail("tables", RetrysafeSchema.TABLES);
        if (rateLimitStore != null && RedisHealth.isRedis(rateLimitStore)) {
            builder.withDetail("redis", RedisHealth.breakerOpen(rateLimitStore) ? DEGRADED : "ok");
        }
    }
}
