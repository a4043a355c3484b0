package dev.retrysafe.server.webhooks;

import dev.retrysafe.delivery.Dispatcher;
import dev.retrysafe.delivery.HttpAttemptSender;
import dev.retrysafe.delivery.RetrySchedule;
import dev.retrysafe.delivery.TargetGuard;
import dev.retrysafe.delivery.WebhookEndpoints;
import dev.retrysafe.liveevents.StreamSignals;
import dev.retrysafe.server.config.ServerConfig;
import dev.retrysafe.server.config.WebhooksConfig;
import dev.retrysafe.server.events.EventLog;
import dev.retrysafe.server.streams.EventStream;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import javax.sql.DataSource;

/**
 * Webhook delivery as the server runs it: the SSRF guard and HTTP sender from the
 * {@code webhooks} settings, the endpoint store, and a started dispatcher whose
 * {@code webhook_endpoint.disabled} events go to the {@link EventLog}. Threadsafe.
 */
public final class Webhooks {

    /** Below this the dispatcher's claims would not outlast a slow attempt. */
    private static final Duration MIN_LEASE = Dispatcher.DEFAULT_LEASE;

    private static final Duration MAX_SHUTDOWN = Duration.ofHours(1);

    private final WebhookEndpoints endpoints;
    private final Clock clock;
    private final TargetGuard guard;
    private final Dispatcher dispatcher;

    private Webhooks(WebhookEndpoints endpoints, Clock clock, TargetGuard guard, Dispatcher dispatcher) {
        this.endpoints = endpoints;
        this.clock = clock;
        this.guard = guard;
        this.dispatcher = dispatcher;
    }

    /**
     * Starts the dispatcher over {@code dataSource}. The sender, then the dispatcher join
     * {@code resources}, which are closed last first: the dispatcher stops (letting attempts in
     * flight finish within the shutdown timeout) before the sender and before the pools opened
     * earlier. Every attempt, once stored, is told to {@code streams}.
     */
    public static Webhooks start(
            ServerConfig config,
            DataSource dataSource,
            Clock clock,
            List<AutoCloseable> resources,
            StreamSignals streams) {
        WebhooksConfig settings = config.webhooks();
        TargetGuard guard = TargetGuard.builder()
                .allowPrivateTargets(settings.allowPrivateTargets())
                .requireHttps(settings.requireHttps())
                .build();
        HttpAttemptSender sender = HttpAttemptSender.builder()
                .guard(guard)
                .timeout(settings.timeout())
                .clock(clock)
                .build();
        resources.add(sender);
        RetrySchedule schedule = RetrySchedule.builder()
                .delays(settings.retrySchedule())
                .jitter(settings.jitter())
                .build();
        Duration lease = settings.timeout().multipliedBy(3);
        Duration shutdown =
                config.shutdownTimeout().compareTo(MAX_SHUTDOWN) > 0 ? MAX_SHUTDOWN : config.shutdownTimeout();
        Dispatcher dispatcher = Dispatcher.builder(dataSource, sender)
                .clock(clock)
                .schedule(schedule)
                .lease(lease.compareTo(MIN_LEASE) > 0 ? lease : MIN_LEASE)
                .maxInFlightPerEndpoint(settings.maxInFlightPerEndpoint())
                .disableAfter(settings.disableAfter())
                .shutdownTimeout(shutdown)
                .eventSink(EventLog.sink())
                // after the commit: an attempt that disabled its endpoint also recorded an event
                .attemptObserver(
                        a -> streams.update(a.accountId(), EventStream.DELIVERY_ATTEMPTED, WebhookJson.attempted(a)))
                .build();
        resources.add(dispatcher);
        dispatcher.start();
        // webhooks.retention: old attempts, finished deliveries and events purged in small batches
        RetentionTask retention = new RetentionTask(dataSource, settings.retention(), clock);
        resources.add(retention);
        retention.start();
        return new Webhooks(WebhookEndpoints.builder(dataSource).clock(clock).build(), clock, guard, dispatcher);
    }

    /** The dispatcher (to wake it after a commit). */
    public Dispatcher dispatcher() {
        return dispatcher;
    }

    /** The handlers of the webhook API; {@code events} tells whose an event is. */
    public WebhookRoutes routes(int maxBodyBytes, WebhookRoutes.EventLookup events) {
        return new WebhookRoutes(
                endpoints, ds -> WebhookEndpoints.builder(ds).clock(clock).build(), guard, events, clock, maxBodyBytes);
    }
}
