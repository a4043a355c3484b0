package dev.retrysafe.spring.autoconfigure;

import dev.retrysafe.servlet.WebhookReceiverFilter;
import dev.retrysafe.spring.WebhookListener;
import dev.retrysafe.spring.internal.WebhookListeners;
import dev.retrysafe.spring.internal.WebhookReceiver;
import dev.retrysafe.spring.internal.WebhookSecretsCondition;
import dev.retrysafe.webhooks.InMemoryWebhookDeduplicator;
import dev.retrysafe.webhooks.JdbcWebhookDeduplicator;
import dev.retrysafe.webhooks.WebhookDeduplicator;
import dev.retrysafe.webhooks.WebhookSecret;
import dev.retrysafe.webhooks.WebhookVerifier;
import java.time.Clock;
import java.util.List;
import javax.sql.DataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import tools.jackson.databind.json.JsonMapper;

/**
 * Webhooks in: {@code POST}s to {@code retrysafe.webhooks.in.path} are verified as Standard
 * Webhooks against {@code retrysafe.webhooks.in.secrets}, de-duplicated by {@code webhook-id}
 * (in the {@code received_webhooks} table when there is a DataSource, else in memory), and handed
 * to the {@link WebhookListener} methods. On when a servlet web application sets at least one
 * secret; {@code retrysafe.webhooks.in.enabled=false} turns it off.
 */
@AutoConfiguration(
        afterName = {
            "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
            "org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration"
        })
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnProperty(prefix = "retrysafe.webhooks.in", name = "enabled", matchIfMissing = true)
@Conditional(WebhookSecretsCondition.class)
@ConditionalOnClass(name = "tools.jackson.databind.json.JsonMapper")
@EnableConfigurationProperties(RetrysafeWebhooksInProperties.class)
public final class RetrysafeWebhooksInAutoConfiguration {

    /** Collects the {@code @WebhookListener} methods (static: a post-processor is made early). */
    @Bean
    @ConditionalOnMissingBean
    static WebhookListeners retrysafeWebhookListeners() {
        return new WebhookListeners();
    }

    /** Where received ids are remembered. */
    @Bean
    @ConditionalOnMissingBean
    WebhookDeduplicator retrysafeWebhookDeduplicator(
            RetrysafeWebhooksInProperties properties,
            ObjectProvider<DataSource> dataSource,
            ObjectProvider<Clock> clock) {
        String mode = properties.getDedupe().isBlank()
                ? (dataSource.getIfAvailable() != null ? "jdbc" : "memory")
                : properties.getDedupe();
        Clock time = clock.getIfAvailable(Clock::systemUTC);
        return switch (mode) {
            case "jdbc" ->
                JdbcWebhookDeduplicator.builder(dataSource.getObject())
                        .ttl(properties.getDedupeTtl())
                        .clock(time)
                        .build();
            case "memory" ->
                InMemoryWebhookDeduplicator.builder()
                        .ttl(properties.getDedupeTtl())
                        .clock(time)
                        .build();
            default ->
                throw new IllegalArgumentException(
                        "retrysafe.webhooks.in.dedupe must be jdbc or memory, was '" + mode + "'");
        };
    }

    /** The receiving endpoint, registered on the configured path. */
    @Bean
    FilterRegistrationBean<WebhookReceiver> retrysafeWebhookReceiver(
            RetrysafeWebhooksInProperties properties,
            WebhookDeduplicator deduplicator,
            WebhookListeners listeners,
            ObjectProvider<JsonMapper> mapper,
            ObjectProvider<Clock> clock) {
        List<WebhookSecret> secrets = properties.getSecrets().stream()
                .filter(s -> !s.isBlank())
                .map(String::strip)
                .map(WebhookSecret::parse)
                .toList();
        WebhookVerifier verifier = WebhookVerifier.builder()
                .secrets(secrets)
                .tolerance(properties.getTolerance())
                .clock(clock.getIfAvailable(Clock::systemUTC))
                .build();
        WebhookReceiverFilter filter = WebhookReceiverFilter.builder()
                .verifier(verifier)
                .deduplicator(deduplicator)
                .maxBodyBytes(properties.getMaxBodyBytes())
                .build();
        mapper.ifAvailable(listeners::useMapper);
        FilterRegistrationBean<WebhookReceiver> registration =
                new FilterRegistrationBean<>(new WebhookReceiver(filter, listeners));
        registration.addUrlPatterns(properties.getPath());
        registration.setName("retrysafeWebhookReceiver");
        return registration;
    }
}
