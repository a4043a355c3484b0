package dev.retrysafe.spring.autoconfigure;

import dev.retrysafe.ratelimit.RateLimitStore;
import dev.retrysafe.ratelimit.redis.RedisRateLimitStore;
import dev.retrysafe.servlet.DecisionListener;
import dev.retrysafe.spring.internal.MicrometerOutcomes;
import dev.retrysafe.spring.internal.RedisStoreMeterBinder;
import dev.retrysafe.spring.internal.RetrysafeHealthIndicator;
import dev.retrysafe.spring.internal.RetrysafeSchema;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import javax.sql.DataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Actuator health {@code retrysafe} ({@code retrysafe.health.enabled}) and Micrometer meters of
 * Retrysafe's decisions ({@code retrysafe.metrics.enabled}).
 */
@AutoConfiguration(
        after = {RetrysafeSchemaAutoConfiguration.class, RetrysafeRateLimitAutoConfiguration.class},
        afterName = {
            "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
            "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
            "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration"
        })
public class RetrysafeObservabilityAutoConfiguration {

    /** Health {@code retrysafe}: the tables, and Redis when the rate limits use it. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.boot.health.contributor.HealthIndicator")
    @ConditionalOnBean({DataSource.class, RetrysafeSchema.class})
    @ConditionalOnBooleanProperty(name = "retrysafe.health.enabled", matchIfMissing = true)
    static class Health {
        @Bean
        @ConditionalOnMissingBean(name = "retrysafeHealthIndicator")
        RetrysafeHealthIndicator retrysafeHealthIndicator(
                DataSource dataSource, ObjectProvider<RateLimitStore> rateLimitStore) {
            return new RetrysafeHealthIndicator(dataSource, rateLimitStore.getIfUnique());
        }
    }

    /** Counters of rate-limit decisions and idempotency claims. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "io.micrometer.core.instrument.MeterRegistry")
    @ConditionalOnBean(type = "io.micrometer.core.instrument.MeterRegistry")
    @ConditionalOnBooleanProperty(name = "retrysafe.metrics.enabled", matchIfMissing = true)
    static class Metrics {
        @Bean
        @ConditionalOnMissingBean
        DecisionListener retrysafeDecisionListener(MeterRegistry registry) {
            return new MicrometerOutcomes(registry);
        }
    }

    /** The Redis store's call latency and breaker state, when the counters are in Redis. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(
            name = {"io.micrometer.core.instrument.MeterRegistry", "dev.retrysafe.ratelimit.redis.RedisRateLimitStore"})
    @ConditionalOnBean(type = "io.micrometer.core.instrument.MeterRegistry")
    @ConditionalOnBooleanProperty(name = "retrysafe.metrics.enabled", matchIfMissing = true)
    static class RedisStoreMetrics {
        @Bean
        @ConditionalOnMissingBean(name = "retrysafeRedisStoreMeters")
        MeterBinder retrysafeRedisStoreMeters(ObjectProvider<RateLimitStore> rateLimitStore) {
            RateLimitStore store = rateLimitStore.getIfUnique();
            return store instanceof RedisRateLimitStore redis ? new RedisStoreMeterBinder(redis) : registry -> {};
        }
    }
}
