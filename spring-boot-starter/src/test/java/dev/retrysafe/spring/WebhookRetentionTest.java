package dev.retrysafe.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpServer;
import dev.retrysafe.delivery.DeliveryRetention;
import dev.retrysafe.delivery.DeliveryStatus;
import dev.retrysafe.delivery.NewEndpoint;
import dev.retrysafe.delivery.PageRequest;
import dev.retrysafe.delivery.WebhookEndpoints;
import dev.retrysafe.spring.autoconfigure.RetrysafeWebhooksOutAutoConfiguration;
import dev.retrysafe.spring.internal.DeliveryLogPurge;
import dev.retrysafe.spring.internal.DispatcherLifecycle;
import dev.retrysafe.testkit.FakeClock;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * {@code retrysafe.webhooks.out.retention}: the delivery log's purge, read against an injected clock,
 * deletes exactly what is older than the cutoff, runs with the dispatcher, and refuses a retention
 * that is not positive. H2, a receiver on loopback.
 *
 * <p>A held delivery (of a paused endpoint, or queued behind its ordering key's head) older than
 * the cutoff is unfinished and must stay too; that case is the delivery module's own
 * (its {@code DeliveryRetentionTest}), not repeated here.
 */
class WebhookRetentionTest {

    private static final String ACCOUNT = "acct_retention";
    private static final Instant T0 = Instant.parse("2026-03-01T00:00:00Z");

    private final FakeClock clock = new FakeClock(T0);
    private HttpServer receiver;
    private ExecutorService receiverThreads;
    private ConfigurableApplicationContext app;

    @BeforeEach
    void start() throws Exception {
        receiverThreads = Executors.newFixedThreadPool(2);
        receiver = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        receiver.setExecutor(receiverThreads);
        receiver.createContext("/", exchange -> {
            exchange.getRequestBody().readAllBytes();
            exchange.sendResponseHeaders(exchange.getRequestURI().getPath().equals("/fail") ? 500 : 204, -1);
            exchange.close();
        });
        receiver.start();
        app = new SpringApplicationBuilder(App.class)
                .initializers(context -> context.getBeanFactory().registerSingleton("clock", clock))
                .properties(
                        "spring.main.web-application-type=none",
                        "spring.datasource.url=" + TestSchemas.newH2(),
                        "retrysafe.webhooks.out.retention=30d",
                        "retrysafe.webhooks.out.account=" + ACCOUNT,
                        "retrysafe.webhooks.out.dispatcher.poll-interval=50ms",
                        "retrysafe.webhooks.out.ssrf.allow-private-targets=127.0.0.0/8,::1/128",
                        "retrysafe.webhooks.out.ssrf.require-https=false",
                        "retrysafe.jobs.enabled=false")
                .run();
    }

    @AfterEach
    void stop() {
        if (app != null) {
            app.close();
        }
        receiver.stop(0);
        receiverThreads.shutdownNow();
    }

    @Test
    void deletesExactlyTheAttemptsAndFinishedDeliveriesOlderThanTheCutoff() throws Exception {
        WebhookEndpointService service = app.getBean(WebhookEndpointService.class);
        WebhookEndpoints endpoints = app.getBean(WebhookEndpoints.class);
        String receiverUrl = "http://127.0.0.1:" + receiver.getAddress().getPort();
        service.create(ACCOUNT, new NewEndpoint(URI.create(receiverUrl + "/ok"), Set.of("order.created"), "answers"));
        service.create(ACCOUNT, new NewEndpoint(URI.create(receiverUrl + "/fail"), Set.of("order.failing"), "fails"));

        // given: at T0 a delivery sent; at T0 + 10d another; at T0 - 1d one whose attempt failed,
        // pending with a retry the frozen clock never reaches
        String old = deliveryOf(publish("order.created"));
        awaitStatus(endpoints, old, DeliveryStatus.SUCCEEDED);
        clock.set(T0.plus(Duration.ofDays(10)));
        String recent = deliveryOf(publish("order.created"));
        awaitStatus(endpoints, recent, DeliveryStatus.SUCCEEDED);
        clock.set(T0.minus(Duration.ofDays(1)));
        String pending = deliveryOf(publish("order.failing"));
        await().atMost(Duration.ofSeconds(20))
                .until(() -> endpoints
                                .delivery(ACCOUNT, pending)
                                .orElseThrow()
                                .attempts()
                                .size()
                        == 1);
        awaitStatus(endpoints, pending, DeliveryStatus.PENDING);
        DispatcherLifecycle dispatcher = app.getBean(DispatcherLifecycle.class);
        DeliveryLogPurge purge = app.getBean(DeliveryLogPurge.class);
        assertThat(purge.isRunning()).isTrue();
        dispatcher.stop(); // nothing moves from here on but the purges this test makes
        assertThat(purge.isRunning())
                .as("the schedule stops with the dispatcher")
                .isFalse();
        assertThat(purge.retention()).isEqualTo(Duration.ofDays(30));

        // when: the cutoff is exactly T0
        clock.set(T0.plus(Duration.ofDays(30)));
        DeliveryRetention.Purged atCutoff = purge.purge();

        // then: only the failed attempt of T0 - 1d goes; its delivery is unfinished, and T0 is not older
        assertThat(atCutoff.attempts()).isEqualTo(1);
        assertThat(atCutoff.deliveries()).isZero();
        assertThat(endpoints.delivery(ACCOUNT, pending)).hasValueSatisfying(d -> {
            assertThat(d.delivery().status()).isEqualTo(DeliveryStatus.PENDING);
            assertThat(d.attempts()).isEmpty();
        });
        assertThat(endpoints.delivery(ACCOUNT, old))
                .hasValueSatisfying(d -> assertThat(d.attempts()).hasSize(1));

        // when: one millisecond later
        clock.advance(Duration.ofMillis(1));
        DeliveryRetention.Purged later = purge.purge();

        // then: the delivery of T0 goes with its attempt; the recent one and the pending one stay
        assertThat(later.attempts()).isEqualTo(1);
        assertThat(later.deliveries()).isEqualTo(1);
        assertThat(endpoints.delivery(ACCOUNT, old))
                .as("a purged delivery is not found")
                .isEmpty();
        assertThat(endpoints.delivery(ACCOUNT, recent))
                .hasValueSatisfying(d -> assertThat(d.attempts()).hasSize(1));
        assertThat(endpoints.delivery(ACCOUNT, pending)).isPresent();
        JdbcTemplate jdbc = new JdbcTemplate(app.getBean(DataSource.class));
        assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM deliveries", Long.class))
                .isEqualTo(2);
        assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM delivery_attempts", Long.class))
                .isEqualTo(1);
        DeliveryRetention.Purged again = purge.purge();
        assertThat(again.attempts() + again.deliveries())
                .as("a second purge finds nothing more")
                .isZero();
    }

    @Test
    void thePurgeRunsExactlyWhileTheDispatcherRuns() {
        DeliveryLogPurge purge = app.getBean(DeliveryLogPurge.class);
        assertThat(purge.isRunning()).isTrue();
        app.close();
        assertThat(purge.isRunning()).isFalse();
        app = null;
    }

    @Test
    void aRetentionThatIsNotPositiveOrUnderAnHourStopsTheStart() {
        ApplicationContextRunner runner = new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(RetrysafeWebhooksOutAutoConfiguration.class))
                .withBean(DataSource.class, () -> TestSchemas.h2(TestSchemas.newH2()));
        runner.withPropertyValues("retrysafe.webhooks.out.retention=0s")
                .run(context -> assertThat(context)
                        .getFailure()
                        .rootCause()
                        .hasMessageContaining("retrysafe.webhooks.out.retention must be positive, was PT0S"));
        runner.withPropertyValues("retrysafe.webhooks.out.retention=-1d")
                .run(context -> assertThat(context)
                        .getFailure()
                        .rootCause()
                        .hasMessageContaining("retrysafe.webhooks.out.retention must be positive"));
        runner.withPropertyValues("retrysafe.webhooks.out.retention=30m")
                .run(context -> assertThat(context)
                        .getFailure()
                        .rootCause()
                        .hasMessageContaining("retrysafe.webhooks.out.retention must be at least 1h"));
        runner.withPropertyValues(
                        "retrysafe.webhooks.out.dispatcher.enabled=false", "retrysafe.webhooks.out.retention=0s")
                .run(context -> assertThat(context)
                        .as("without a dispatcher there is no purge")
                        .hasNotFailed()
                        .doesNotHaveBean(DeliveryLogPurge.class));
    }

    private String publish(String type) {
        WebhookPublisher publisher = app.getBean(WebhookPublisher.class);
        return app.getBean(TransactionTemplate.class)
                .execute(status ->
                        publisher.publish(type, Map.of("at", clock.instant().toString())));
    }

    private String deliveryOf(String eventId) {
        return app.getBean(WebhookEndpoints.class)
                .eventDeliveries(ACCOUNT, eventId, PageRequest.first(10))
                .items()
                .getFirst()
                .id();
    }

    private static void awaitStatus(WebhookEndpoints endpoints, String deliveryId, DeliveryStatus status) {
        await().atMost(Duration.ofSeconds(20))
                .until(() -> endpoints
                        .delivery(ACCOUNT, deliveryId)
                        .map(d -> d.delivery().status() == status)
                        .orElse(false));
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class App {}
}
