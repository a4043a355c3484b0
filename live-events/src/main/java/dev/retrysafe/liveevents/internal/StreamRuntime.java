package dev.retrysafe.liveevents.internal;

import dev.retrysafe.liveevents.Callers;
import dev.retrysafe.liveevents.ConnectionFactory;
import dev.retrysafe.liveevents.EventSource;
import dev.retrysafe.liveevents.LiveEventsConfig;
import dev.retrysafe.liveevents.MetricsWriter;
import dev.retrysafe.liveevents.ProblemWriter;
import jakarta.servlet.Servlet;
import java.time.Clock;
import java.util.Map;
import java.util.UUID;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * What {@link dev.retrysafe.liveevents.LiveEvents} runs: the servlet, this instance's streams and
 * their feed, and the bus between instances. Threadsafe.
 */
public final class StreamRuntime implements AutoCloseable {

    private final LiveEventsConfig config;
    private final StreamMetrics metrics;
    private final EventFeed feed;
    private final StreamHub hub;
    private final Bus bus;
    private final StreamServlet servlet;
    private final Admissions admissions;

    private StreamRuntime(
            LiveEventsConfig config,
            StreamMetrics metrics,
            EventFeed feed,
            StreamHub hub,
            Bus bus,
            Admissions admissions,
            ProblemWriter problems,
            Callers callers) {
        this.config = config;
        this.metrics = metrics;
        this.feed = feed;
        this.hub = hub;
        this.bus = bus;
        this.servlet = new StreamServlet(hub, callers, problems);
        this.admissions = admissions;
    }

    /**
     * Starts the feed over {@code events}, the hub's pings and the bus: on PostgreSQL when
     * {@code pool} and {@code connections} are given (shared count, {@code LISTEN}/{@code NOTIFY}),
     * in-process otherwise.
     */
    public static StreamRuntime start(
            LiveEventsConfig config,
            EventSource events,
            Callers callers,
            Clock clock,
            ProblemWriter problems,
            @Nullable DataSource pool,
            @Nullable ConnectionFactory connections) {
        StreamMetrics metrics = new StreamMetrics();
        boolean postgres = pool != null && connections != null;
        // names this instance in the other instances' notifications and in the shared count
        String instance = UUID.randomUUID().toString();
        @Nullable
        ConnectionLeases leases = postgres
                ? new ConnectionLeases(
                        pool, instance, config.maxConnectionsPerAccount(), config.connectionLease(), clock)
                : null;
        Admissions admissions = new Admissions(config.maxConnectionsPerAccount(), leases);
        EventFeed feed = new EventFeed(config, events, metrics, admissions::watched);
        StreamHub hub = new StreamHub(config, callers, feed, admissions, metrics, clock);
        Bus bus;
        if (postgres) {
            PostgresBus notifications = new PostgresBus(instance, connections, feed::signal, feed::pollNow, metrics);
            notifications.start();
            bus = notifications;
        } else {
            bus = new LocalBus(feed::signal);
        }
        StreamRuntime live = new StreamRuntime(config, metrics, feed, hub, bus, admissions, problems, callers);
        try {
            if (leases != null) {
                leases.onLost(hub::placeLost);
                leases.start();
            }
            feed.start();
            hub.start();
        } catch (RuntimeException e) {
            live.close(); // no thread started so far outlives a failed start
            throw e;
        }
        return live;
    }

    /** The servlet of the stream. */
    public Servlet servlet() {
        return servlet;
    }

    /** This instance's stream figures, read now. */
    public void writeMetrics(MetricsWriter out) {
        metrics.render(out, hub::open, hub::fullestBuffer, config.bufferMessages());
    }

    /** Wakes the account's streams on every instance. */
    public void eventsCommitted(String accountId) {
        bus.publish(new Signal.Wake(accountId));
    }

    /** Sends an update to the account's streams on every instance, after its committed events. */
    public void update(String accountId, String topic, Map<String, ?> payload) {
        bus.publish(new Signal.Update(accountId, topic, Frame.of(ServerMessages.update(topic, payload))));
    }

    /** Stops carrying signals, closes every stream (1001), stops the feed and gives the streams' places back. */
    @Override
    public void close() {
        bus.close();
        admissions.close(); // first: one statement gives every place back, not one per stream closed below
        hub.close();
        feed.close();
    }
}
