package dev.retrysafe.spring.autoconfigure;

import dev.retrysafe.ratelimit.InMemoryRateLimitStore;
import dev.retrysafe.ratelimit.Policy;
import dev.retrysafe.ratelimit.RateLimitStore;
import dev.retrysafe.servlet.DecisionListener;
import dev.retrysafe.spring.RetrysafeCaller;
import dev.retrysafe.spring.internal.HandlerLookup;
import dev.retrysafe.spring.internal.MvcRefusals;
import dev.retrysafe.spring.internal.PolicySettings;
import dev.retrysafe.spring.internal.RateLimitFilters;
import dev.retrysafe.spring.internal.RateLimitProblems;
import dev.retrysafe.spring.internal.RateLimitedNamesCheck;
import dev.retrysafe.spring.internal.RedisStores;
import dev.retrysafe.spring.internal.SpringDataRedisStores;
import java.util.ArrayList;
import java.util.List;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.ApplicationContext;
import org.springframework.context.MessageSource;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.web.servlet.config.annotation.InterceptorRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

/**
 * Rate limits for {@code @RateLimited} controller methods, with the policies of
 * {@code retrysafe.rate-limits.policies}, counted in memory or in Redis.
 */
@AutoConfiguration(
        after = RetrysafeWebMvcAutoConfiguration.class,
        afterName = "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration")
@ConditionalOnBean(HandlerLookup.class)
@ConditionalOnBooleanProperty(name = "retrysafe.rate-limits.enabled", matchIfMissing = true)
@EnableConfigurationProperties(RetrysafeRateLimitProperties.class)
public class RetrysafeRateLimitAutoConfiguration {

    /**
     * With {@code store: redis} in an application that has Spring Data Redis's
     * {@code LettuceConnectionFactory}: the counters go through its Lettuce client, configured by
     * {@code spring.data.redis.*}, unless {@code retrysafe.rate-limits.redis.url} names another
     * Redis. Registered before the store below, which then backs off.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(
            name = {
                "org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory",
                "dev.retrysafe.ratelimit.redis.RedisRateLimitStore"
            })
    @ConditionalOnBean(type = "org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory")
    @ConditionalOnProperty(name = "retrysafe.rate-limits.store", havingValue = "redis")
    static class SpringDataRedis {
        @Bean(destroyMethod = "close")
        @ConditionalOnMissingBean
        RateLimitStore retrysafeSpringDataRedisRateLimitStore(
                RetrysafeRateLimitProperties properties, LettuceConnectionFactory factory) {
            RetrysafeRateLimitProperties.Redis redis = properties.getRedis();
            String url = redis.getUrl();
            return url == null || url.isBlank()
                    ? SpringDataRedisStores.store(
                            factory, redis.getKeyPrefix(), redis.getTimeout(), redis.getFallbackInstances())
                    : RedisStores.store(url, redis.getKeyPrefix(), redis.getTimeout(), redis.getFallbackInstances());
        }
    }

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

    /**
     * Refusals answered by Spring MVC: the interceptor that raises them before the handler method
     * and, last of the advices, the {@code ProblemDetail} answer when the application has none.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.web.servlet.config.annotation.WebMvcConfigurer")
    static class Refusals {
        @Bean
        WebMvcConfigurer retrysafeRateLimitRefusals() {
            return new WebMvcConfigurer() {
                @Override
                public void addInterceptors(InterceptorRegistry registry) {
                    // first: a refused request runs none of the application's interceptors either
                    registry.addInterceptor(MvcRefusals.INTERCEPTOR).order(Ordered.HIGHEST_PRECEDENCE);
                }
            };
        }

        @Bean
        @ConditionalOnMissingBean
        RateLimitProblems retrysafeRateLimitProblems(MessageSource messages) {
            return new RateLimitProblems(messages);
        }
    }

    /** A {@code @RateLimited} naming an undefined policy stops the start (Spring MVC apps). */
    @Bean
    @ConditionalOnClass(name = "org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerMapping")
    static RateLimitedNamesCheck retrysafeRateLimitedNamesCheck(
            ApplicationContext context, ObjectProvider<RateLimitFilters> filters) {
        return new RateLimitedNamesCheck(context, filters.getObject());
    }
}
