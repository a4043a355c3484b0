package dev.retrysafe.spring.autoconfigure;

import dev.retrysafe.delivery.Dispatcher;
import dev.retrysafe.delivery.HttpAttemptSender;
import dev.retrysafe.delivery.TargetGuard;
import dev.retrysafe.delivery.WebhookEndpoints;
import dev.retrysafe.spring.WebhookEndpointService;
import dev.retrysafe.spring.WebhookPayloadWriter;
import dev.retrysafe.spring.WebhookPublisher;
import dev.retrysafe.spring.internal.DeliveryLogPurge;
import dev.retrysafe.spring.internal.DeliveryMeters;
import dev.retrysafe.spring.internal.DispatcherLifecycle;
import dev.retrysafe.spring.internal.JacksonPayloadWriter;
import dev.retrysafe.spring.internal.WebhookEndpointRoutes;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.time.Clock;
import javax.sql.DataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import tools.jackson.databind.json.JsonMapper;

/**
 * Webhooks out: the {@link WebhookPublisher} that writes the outbox in the application's
 * transaction, the {@link WebhookEndpointService}, the SSRF guard, and the {@link Dispatcher} run
 * as a lifecycle bean; optionally REST routes for the endpoints and Micrometer meters. Needs a
 * {@link DataSource} with the delivery tables; {@code retrysafe.webhooks.out.enabled=false} turns
 * it all off, {@code retrysafe.webhooks.out.dispatcher.enabled=false} only the sending (and the
 * purge of {@code retrysafe.webhooks.out.retention}, which runs with the dispatcher).
 */
@AutoConfiguration(
        afterName = {
            "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
            "org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration"
        })
@ConditionalOnBean(DataSource.class)
@ConditionalOnProperty(prefix = "retrysafe.webhooks.out", name = "enabled", matchIfMissing = true)
@EnableConfigurationProperties(RetrysafeWebhooksOutProperties.class)
public final class RetrysafeWebhooksOutAutoConfiguration {

    /** The SSRF guard: public https targets only, unless blocks are allowed for tests. */
    @Bean
    @ConditionalOnMissingBean
    TargetGuard retrysafeTargetGuard(RetrysafeWebhooksOutProperties properties) {
        return TargetGuard.builder()
                .allowPrivateTargets(properties.getSsrf().getAllowPrivateTargets())
                .requireHttps(properties.getSsrf().isRequireHttps())
                .build();
    }

    /** The endpoint store on the application's data source. */
    @Bean
    @ConditionalOnMissingBean
    WebhookEndpoints retrysafeWebhookEndpoints(
            DataSource dataSource, RetrysafeWebhooksOutProperties properties, ObjectProvider<Clock> clock) {
        return WebhookEndpoints.builder(dataSource)
                .clock(clock.getIfAvailable(Clock::systemUTC))
                .rotationGrace(properties.getRotationGrace())
                .build();
    }

    /** Endpoints behind the SSRF guard. */
    @Bean
    @ConditionalOnMissingBean
    WebhookEndpointService retrysafeWebhookEndpointService(
            WebhookEndpoints endpoints, TargetGuard guard, ObjectProvider<Dispatcher> dispatcher) {
        // a resume makes held deliveries due now: wake this instance's dispatcher, if it runs one
        return new WebhookEndpointService(endpoints, guard, () -> dispatcher.ifAvailable(Dispatcher::wakeUp));
    }

    /** The publisher, waking this instance's dispatcher (if it runs one) after each commit. */
    @Bean
    @ConditionalOnMissingBean
    WebhookPublisher retrysafeWebhookPublisher(
            DataSource dataSource,
            RetrysafeWebhooksOutProperties properties,
            ObjectProvider<WebhookPayloadWriter> payloads,
            ObjectProvider<Dispatcher> dispatcher,
            ObjectProvider<Clock> clock) {
        WebhookPayloadWriter writer = payloads.getIfAvailable(() -> {
            throw new IllegalStateException("WebhookPublisher needs a WebhookPayloadWriter bean or Jackson 3"
                    + " (tools.jackson.core:jackson-databind) to write payloads");
        });
        return new WebhookPublisher(
                dataSource,
                properties.getAccount(),
                writer,
                clock.getIfAvailable(Clock::systemUTC),
                () -> dispatcher.ifAvailable(Dispatcher::wakeUp));
    }

    /** Payloads written with the application's Jackson 3 mapper. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(JsonMapper.class)
    static final class JacksonPayloads {

        @Bean
        @ConditionalOnMissingBean
        WebhookPayloadWriter retrysafeWebhookPayloadWriter(ObjectProvider<JsonMapper> mapper) {
            return new JacksonPayloadWriter(mapper.getIfAvailable(JsonMapper::shared));
        }
    }

    /** The dispatcher and its HTTP sender. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnProperty(prefix = "retrysafe.webhooks.out.dispatcher", name = "enabled", matchIfMissing = true)
    static final class Dispatching {

        @Bean
        @ConditionalOnMissingBean
        HttpAttemptSender retrysafeAttemptSender(TargetGuard guard, RetrysafeWebhooksOutProperties properties) {
            return HttpAttemptSender.builder()
                    .guard(guard)
                    .timeout(properties.getDispatcher().getAttemptTimeout())
                    .build();
        }

        @Bean
        @ConditionalOnMissingBean
        Dispatcher retrysafeDispatcher(
                DataSource dataSource,
                HttpAttemptSender sender,
                RetrysafeWebhooksOutProperties properties,
                ObjectProvider<Clock> clock) {
            RetrysafeWebhooksOutProperties.Dispatch d = properties.getDispatcher();
            Dispatcher.Builder builder = Dispatcher.builder(dataSource, sender)
                    .clock(clock.getIfAvailable(Clock::systemUTC))
                    .lease(d.getLease())
                    .batchSize(d.getBatchSize())
                    .workers(d.getWorkers())
                    .pollInterval(d.getPollInterval())
                    .maxInFlightPerEndpoint(d.getMaxInFlightPerEndpoint())
                    .disableAfter(d.getDisableAfter())
                    .shutdownTimeout(d.getShutdownTimeout());
            if (!d.getInstanceId().isBlank()) {
                builder.instanceId(d.getInstanceId());
            }
            return builder.build();
        }

        /** {@code retrysafe.webhooks.out.retention}: run by the dispatcher's lifecycle, so only where a dispatcher runs. */
        @Bean
        @ConditionalOnMissingBean
        DeliveryLogPurge retrysafeDeliveryLogPurge(
                DataSource dataSource, RetrysafeWebhooksOutProperties properties, ObjectProvider<Clock> clock) {
            return new DeliveryLogPurge(dataSource, properties.getRetention(), clock.getIfAvailable(Clock::systemUTC));
        }

        @Bean
        @ConditionalOnMissingBean
        DispatcherLifecycle retrysafeDispatcherLifecycle(Dispatcher dispatcher, DeliveryLogPurge purge) {
            return new DispatcherLifecycle(dispatcher, true, purge);
        }

        /** Deliveries by outcome, queue depth and first-attempt latency, named as the server's {@code /metrics}. */
        @Configuration(proxyBeanMethods = false)
        @ConditionalOnClass(MeterBinder.class)
        @ConditionalOnProperty(prefix = "retrysafe.webhooks.out.metrics", name = "enabled", matchIfMissing = true)
        static final class Meters {

            @Bean
            @ConditionalOnMissingBean
            DeliveryMeters retrysafeDeliveryMeters(Dispatcher dispatcher) {
                return new DeliveryMeters(dispatcher);
            }
        }
    }

    /** {@code /v1/webhook_endpoints}-shaped routes, when asked for and Spring MVC serves the app. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
    @ConditionalOnClass(name = "org.springframework.web.servlet.DispatcherServlet")
    @ConditionalOnProperty(prefix = "retrysafe.webhooks.out.routes", name = "enabled", havingValue = "true")
    static final class Routes {

        @Bean
        @ConditionalOnMissingBean
        WebhookEndpointRoutes retrysafeWebhookEndpointRoutes(
                WebhookEndpointService endpoints, RetrysafeWebhooksOutProperties properties) {
            return new WebhookEndpointRoutes(endpoints, properties.getAccount());
        }
    }
}
