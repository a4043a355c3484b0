package dev.retrysafe.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.retrysafe.delivery.Dispatcher;
import dev.retrysafe.delivery.TargetGuard;
import dev.retrysafe.spring.autoconfigure.RetrysafeClientAutoConfiguration;
import dev.retrysafe.spring.autoconfigure.RetrysafeJobsAutoConfiguration;
import dev.retrysafe.spring.autoconfigure.RetrysafeWebhooksInAutoConfiguration;
import dev.retrysafe.spring.autoconfigure.RetrysafeWebhooksOutAutoConfiguration;
import dev.retrysafe.spring.internal.DeliveryMeters;
import dev.retrysafe.spring.internal.DispatcherLifecycle;
import dev.retrysafe.spring.internal.JobMeters;
import dev.retrysafe.spring.internal.WebhookEndpointRoutes;
import dev.retrysafe.webhooks.WebhookSecret;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.restclient.RestClientCustomizer;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.web.servlet.FilterRegistrationBean;

/** Every piece is on by default when what it needs is there, turns off on its own, and backs off for an app bean. */
class PiecesSwitchTest {

    private static final AutoConfigurations ALL = AutoConfigurations.of(
            RetrysafeWebhooksOutAutoConfiguration.class,
            RetrysafeWebhooksInAutoConfiguration.class,
            RetrysafeJobsAutoConfiguration.class,
            RetrysafeClientAutoConfiguration.class);

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(ALL)
            .withBean(DataSource.class, () -> {
                try {
                    return TestSchemas.h2(TestSchemas.h2WithTables());
                } catch (java.sql.SQLException e) {
                    throw new IllegalStateException(e);
                }
            });

    @Test
    void everythingIsOnByDefault() {
        runner.run(context -> {
            assertThat(context).hasSingleBean(WebhookPublisher.class);
            assertThat(context).hasSingleBean(WebhookEndpointService.class);
            assertThat(context).hasSingleBean(Dispatcher.class);
            assertThat(context).hasSingleBean(DispatcherLifecycle.class);
            assertThat(context).hasSingleBean(DeliveryMeters.class);
            assertThat(context).hasSingleBean(RetrysafeJobs.class);
            assertThat(context).hasSingleBean(JobMeters.class);
            assertThat(context).hasSingleBean(RestClientCustomizer.class);
            assertThat(context).doesNotHaveBean(WebhookEndpointRoutes.class);
            assertThat(context.getBean(DispatcherLifecycle.class).isRunning()).isTrue();
            assertThat(context.getBean(RetrysafeJobs.class).isRunning()).isTrue();
        });
    }

    @Test
    void withoutADataSourceOnlyTheClientIsConfigured() {
        new ApplicationContextRunner().withConfiguration(ALL).run(context -> {
            assertThat(context).doesNotHaveBean(WebhookPublisher.class);
            assertThat(context).doesNotHaveBean(RetrysafeJobs.class);
            assertThat(context).hasSingleBean(RestClientCustomizer.class);
        });
    }

    @Test
    void eachPieceTurnsOffOnItsOwn() {
        runner.withPropertyValues("retrysafe.webhooks.out.enabled=false").run(context -> {
            assertThat(context).doesNotHaveBean(WebhookPublisher.class);
            assertThat(context).doesNotHaveBean(Dispatcher.class);
            assertThat(context).hasSingleBean(RetrysafeJobs.class);
        });
        runner.withPropertyValues("retrysafe.webhooks.out.dispatcher.enabled=false")
                .run(context -> {
                    assertThat(context).hasSingleBean(WebhookPublisher.class);
                    assertThat(context).doesNotHaveBean(Dispatcher.class);
                    assertThat(context).doesNotHaveBean(DeliveryMeters.class);
                });
        runner.withPropertyValues(
                        "retrysafe.webhooks.out.metrics.enabled=false", "retrysafe.jobs.metrics.enabled=false")
                .run(context -> {
                    assertThat(context).hasSingleBean(Dispatcher.class);
                    assertThat(context).doesNotHaveBean(DeliveryMeters.class);
                    assertThat(context).doesNotHaveBean(JobMeters.class);
                });
        runner.withPropertyValues("retrysafe.jobs.enabled=false").run(context -> {
            assertThat(context).doesNotHaveBean(RetrysafeJobs.class);
            assertThat(context).hasSingleBean(WebhookPublisher.class);
        });
        runner.withPropertyValues("retrysafe.jobs.workers-enabled=false").run(context -> {
            assertThat(context).hasSingleBean(RetrysafeJobs.class);
        });
        runner.withPropertyValues("retrysafe.client.enabled=false").run(context -> {
            assertThat(context).doesNotHaveBean(RestClientCustomizer.class);
        });
    }

    @Test
    void anApplicationBeanWins() {
        TargetGuard own = TargetGuard.builder().build();
        runner.withBean("ownGuard", TargetGuard.class, () -> own).run(context -> {
            assertThat(context).hasSingleBean(TargetGuard.class);
            assertThat(context.getBean(TargetGuard.class)).isSameAs(own);
        });
    }

    @Test
    void webhooksInNeedASecretAndTurnOff() {
        WebApplicationContextRunner web = new WebApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(RetrysafeWebhooksInAutoConfiguration.class));
        String secret = WebhookSecret.generate().encoded();
        web.run(context -> assertThat(context).doesNotHaveBean(FilterRegistrationBean.class));
        web.withPropertyValues("retrysafe.webhooks.in.secrets=" + secret)
                .run(context -> assertThat(context).hasSingleBean(FilterRegistrationBean.class));
        web.withPropertyValues("retrysafe.webhooks.in.secrets=" + secret, "retrysafe.webhooks.in.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean(FilterRegistrationBean.class));
    }
}
