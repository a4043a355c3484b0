package dev.retrysafe.spring.autoconfigure;

import dev.retrysafe.ratelimit.InMemoryRateLimitStore;
import dev.retrysafe.ratelimit.Policy;
import dev.retrysafe.ratelimit.RateLimitStore;
import dev.retrysafe.servlet.DecisionListener;
import dev.retrysafe.spring.RetrysafeCaller;
import dev.retrysafe.spring.internal.HandlerLookup;
import dev.retrysafe.spring.internal.PolicySettings;
import dev.retrysafe.spring.internal.RateLimitFilters;
import dev.retrysafe.spring.internal.RateLimitedNamesCheck;
import dev.retrysafe.spring.internal.RedisStores;
import java.util.ArrayList;
import java.util.List;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;

/**
 * Rate limits for {@code @RateLimited} controller methods, with the policies of
 * {@code retrysafe.rate-limits.policies}, counted in memory or in Redis.
 */
@AutoConfiguration(after = RetrysafeWebMvcAutoConfiguration.class)
@ConditionalOnBean(HandlerLookup.class)
@ConditionalOnBooleanProperty(name = "retrysafe.rate-limits.enabled", matchIfMissing = true)
@EnableConfigurationProperties(RetrysafeRateLimitProperties.class)
public class RetrysafeRateLimitAutoConfiguration {

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    RateLimitStore retrysafeRateLimitStore(RetrysafeRateLimitProperties properties) {
        return switch (properties.getStore()) {
            case MEMORY -> InMemoryRateLimitStore.builder().build();
            case REDIS ->
                RedisStores.store(
                        properties.getRedis().getUrl(),
                        properties.getRedis().getKeyPrefix(),
                        properties.getRedis().getTimeout(),
                        properties.getRedis().getFallbackInstances());
        };
    }

    @Bean
    @ConditionalOnMissingBean
    RateLimitFilters retrysafeRateLimitFilters(
            RateLimitStore store,
            RetrysafeCaller caller,
            HandlerLookup lookup,
            RetrysafeRateLimitProperties properties,
            ObjectProvider<DecisionListener> outcomes) {
        List<Policy> policies = new ArrayList<>();
        properties
                .getPolicies()
                .forEach((name, p) -> policies.add(PolicySettings.policy(
                        name,
                        p.getScope(),
                        p.getAlgorithm(),
                        p.getQuota(),
                        p.getWindow(),
                        p.getBurst(),
                        p.getCost(),
                        p.getFail(),
                        p.getAppliesTo(),
                        p.getMode())));
        return new RateLimitFilters(
                DecisionListener.counting(store, outcomes.getIfAvailable(() -> DecisionListener.NONE)),
                policies,
                caller,
                lookup,
                properties.getRetryAfterJitter(),
                properties.getProblemTypeBase());
    }

    /** A {@code @RateLimited} naming an undefined policy stops the start (Spring MVC apps). */
    @Bean
    @ConditionalOnClass(name = "org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerMapping")
    static RateLimitedNamesCheck retrysafeRateLimitedNamesCheck(
            ApplicationContext context, ObjectProvider<RateLimitFilters> filters) {
        return new RateLimitedNamesCheck(context, filters.getObject());
    }
}
