package dev.retrysafe.spring.autoconfigure;

import dev.retrysafe.client.RetryBudget;
import dev.retrysafe.client.RetryPolicy;
import dev.retrysafe.client.Sleeper;
import dev.retrysafe.spring.internal.RetryingRequestInterceptor;
import java.time.Clock;
import java.util.Random;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.restclient.RestClientCustomizer;
import org.springframework.context.annotation.Bean;

/**
 * The retrying client: a {@link RestClientCustomizer} that gives every {@code RestClient.Builder}
 * Spring Boot hands out the {@link RetryingRequestInterceptor}, with the {@code retrysafe-client}
 * module's {@link RetryPolicy} and one {@link RetryBudget} shared by them all. On when
 * {@code spring-boot-restclient} is present; {@code retrysafe.client.enabled=false} turns it off.
 * An application {@link Sleeper} bean replaces real waiting (tests).
 */
@AutoConfiguration
@ConditionalOnClass(
        name = {"org.springframework.boot.restclient.RestClientCustomizer", "org.springframework.web.client.RestClient"
        })
@ConditionalOnProperty(prefix = "retrysafe.client", name = "enabled", matchIfMissing = true)
@EnableConfigurationProperties(RetrysafeClientProperties.class)
public final class RetrysafeClientAutoConfiguration {

    /** The policy from {@code retrysafe.client.*}. */
    @Bean
    @ConditionalOnMissingBean
    RetryPolicy retrysafeRetryPolicy(RetrysafeClientProperties p) {
        return RetryPolicy.builder()
                .maxAttempts(p.getMaxAttempts())
                .baseDelay(p.getBaseDelay())
                .maxDelay(p.getMaxDelay())
                .deadline(p.getDeadline())
                .maxRetryAfter(p.getMaxRetryAfter())
                .retryAfterSpread(p.getRetryAfterSpread())
                .retryableStatuses(p.getRetryableStatuses())
                .retryKeyInUse(p.isRetryKeyInUse())
                .generateIdempotencyKeys(p.isGenerateIdempotencyKeys())
                .build();
    }

    /** One budget for every RestClient of the application. */
    @Bean
    @ConditionalOnMissingBean
    RetryBudget retrysafeRetryBudget(RetrysafeClientProperties p) {
        RetrysafeClientProperties.Budget b = p.getBudget();
        return b.isEnabled()
                ? RetryBudget.builder()
                        .retryRatio(b.getRetryRatio())
                        .burst(b.getBurst())
                        .build()
                : RetryBudget.unlimited();
    }

    /** The interceptor. */
    @Bean
    @ConditionalOnMissingBean
    RetryingRequestInterceptor retrysafeRetryingRequestInterceptor(
            RetryPolicy policy, RetryBudget budget, ObjectProvider<Sleeper> sleeper, ObjectProvider<Clock> clock) {
        return new RetryingRequestInterceptor(
                policy,
                budget,
                sleeper.getIfAvailable(Sleeper::system),
                clock.getIfAvailable(Clock::systemUTC),
                new Random());
    }

    /** Adds the interceptor to every RestClient.Builder that Spring Boot hands out. */
    @Bean
    RestClientCustomizer retrysafeRestClientCustomizer(RetryingRequestInterceptor interceptor) {
        return builder -> builder.requestInterceptor(interceptor);
    }
}
