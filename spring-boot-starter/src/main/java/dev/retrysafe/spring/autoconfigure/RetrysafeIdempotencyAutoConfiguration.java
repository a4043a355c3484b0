package dev.retrysafe.spring.autoconfigure;

import dev.retrysafe.idempotency.IdempotencyStore;
import dev.retrysafe.idempotency.JdbcIdempotencyStore;
import dev.retrysafe.servlet.DecisionListener;
import dev.retrysafe.servlet.IdempotencyFilter;
import dev.retrysafe.spring.RetrysafeCaller;
import dev.retrysafe.spring.internal.ClaimModes;
import dev.retrysafe.spring.internal.HandlerLookup;
import dev.retrysafe.spring.internal.KeyPurger;
import dev.retrysafe.spring.internal.RetrysafeRequestFilter;
import dev.retrysafe.spring.internal.RetrysafeSchema;
import dev.retrysafe.spring.internal.SpringRequestTransactions;
import java.time.Clock;
import javax.sql.DataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * Idempotency keys for {@code @Idempotent} controller methods, on the application's
 * {@code DataSource}, in transactions of its {@code DataSourceTransactionManager}: the stored
 * answer commits with the method's own {@code @Transactional} work, or not at all.
 */
@AutoConfiguration(
        after = {RetrysafeWebMvcAutoConfiguration.class, RetrysafeSchemaAutoConfiguration.class},
        afterName = {
            "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
            "org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration"
        })
@ConditionalOnBean({HandlerLookup.class, DataSource.class, PlatformTransactionManager.class})
@ConditionalOnBooleanProperty(name = "retrysafe.idempotency.enabled", matchIfMissing = true)
@EnableConfigurationProperties(RetrysafeIdempotencyProperties.class)
public class RetrysafeIdempotencyAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    IdempotencyStore retrysafeIdempotencyStore(
            DataSource dataSource, RetrysafeIdempotencyProperties properties, ObjectProvider<RetrysafeSchema> schema) {
        schema.ifAvailable(created -> {}); // the tables first
        return JdbcIdempotencyStore.builder(dataSource)
                .retention(properties.getKeyTtl())
                .claims(properties.getClaims() != null ? properties.getClaims() : ClaimModes.forDatabase(dataSource))
                .build();
    }

    @Bean
    @ConditionalOnMissingBean
    IdempotencyFilter retrysafeIdempotencyFilter(
            IdempotencyStore store,
            DataSource dataSource,
            PlatformTransactionManager transactionManager,
            HandlerLookup lookup,
            RetrysafeCaller caller,
            RetrysafeIdempotencyProperties properties,
            ObjectProvider<DecisionListener> outcomes) {
        return IdempotencyFilter.builder()
                .transactions(new SpringRequestTransactions(transactionManager, dataSource))
                .store(DecisionListener.counting(store, outcomes.getIfAvailable(() -> DecisionListener.NONE)))
                .scope(caller::account)
                .routes(request -> RetrysafeRequestFilter.idempotentRoute(lookup, request))
                .lease(properties.getLease())
                .maxBodyBytes(properties.getMaxBodyBytes())
                .storedHeaders(properties.getStoredHeaders().toArray(String[]::new))
                .problemTypeBase(properties.getProblemTypeBase())
                .build();
    }

    /**
     * Keeps the container from installing the filter bean on every request by itself: it runs
     * inside Retrysafe's request filter, for {@code @Idempotent} methods only.
     */
    @Bean
    FilterRegistrationBean<IdempotencyFilter> retrysafeIdempotencyFilterRegistration(IdempotencyFilter filter) {
        FilterRegistrationBean<IdempotencyFilter> registration = new FilterRegistrationBean<>(filter);
        registration.setEnabled(false);
        return registration;
    }

    @Bean
    @ConditionalOnMissingBean
    KeyPurger retrysafeKeyPurger(IdempotencyStore store, RetrysafeIdempotencyProperties properties) {
        return new KeyPurger(store, properties.getKeyTtl(), properties.getPurgeInterval(), Clock.systemUTC());
    }
}
