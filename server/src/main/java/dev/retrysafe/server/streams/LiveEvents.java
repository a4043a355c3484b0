package dev.retrysafe.server.streams;

import dev.retrysafe.server.config.DatabaseConfig;
import dev.retrysafe.server.config.ServerConfig;
import dev.retrysafe.server.config.StreamsConfig;
import dev.retrysafe.server.db.Transactions;
import jakarta.servlet.Servlet;
import java.nio.file.Path;
import java.sql.DriverManager;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * The live event stream as the server runs it: the WebSocket servlet of {@value #PATH}, this
 * instance's streams and their feed, and the bus that carries news between instances
 * (PostgreSQL {@code LISTEN}/{@code NOTIFY} on PostgreSQL, in-process in the embedded mode). It
 * is also the server's {@link StreamSignals}. On PostgreSQL the per-account limit of streams is
 * counted for all instances together ({@link ConnectionLeases}). Threadsafe.
 */
public final class LiveEvents implements StreamSignals, AutoCloseable {

    /** The path of the stream. */
    public static final String PATH = "/v1/events/stream";
    /** The topic of delivery attempts. */
    public static final String DELIVERY_ATTEMPTED = "delivery.attempted";
    /** The topic of job changes. */
    public static final String JOB_UPDATED = "job.updated";

    private final StreamsConfig config;
    private final StreamMetrics metrics;
    private final EventFeed feed;
    private final StreamHub hub;
    private final Bus bus;
    private final StreamServlet servlet;
    private final Admissions admissions;

    private LiveEvents(StreamsConfig config, StreamMetrics metrics, EventFeed feed, StreamHub hub, Bus bus,
                       Admissions admissions) {
        this.config = config;
        this.metrics = metrics;
        this.feed = feed;
        this.hub = hub;
        this.bus = bus;
        this.servlet = new StreamServlet(hub);
        this.admissions = admissions;
    }

    /**
     * Starts the feed, the hub's pings and the bus over {@code dataSource}; the result joins
     * {@code resources} (start it before whatever signals it, so that it closes after them).
     */
    public static LiveEvents start(ServerConfig config, DataSource dataSource, KeyLookup keys, Clock clock,
                                   List<AutoCloseable> resources) {
        StreamsConfig settings = config.streams();
        StreamMetrics metrics = new StreamMetrics();
        Transactions transactions = new Transactions(dataSource);
        boolean postgres = config.database().postgres();
        // names this instance in the other instances' notifications and in the shared count
        String instance = UUID.randomUUID().toString();
        @Nullable ConnectionLeases leases = postgres ? new ConnectionLeases(transactions, instance,
                settings.maxConnectionsPerAccount(), settings.connectionLease(), clock) : null;
        Admissions admissions = new Admissions(settings.maxConnectionsPerAccount(), leases);
        EventFeed feed = new EventFeed(settings, transactions, metrics, admissions::watched);
        StreamHub hub = new StreamHub(settings, keys, feed, admissions, metrics, clock);
        Bus bus;
        if (postgres) {
            PostgresBus notifications = new PostgresBus(instance, connector(config.database(), config.dataDir()),
                    feed::signal, feed::pollNow, metrics);
            notifications.start();
            bus = notifications;
        } else {
            bus = new LocalBus(feed::signal);
        }
        LiveEvents live = new LiveEvents(settings, metrics, feed, hub, bus, admissions);
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
        resources.add(live);
        return live;
    }

    private static PostgresBus.Connector connector(DatabaseConfig database, Path dataDir) {
        return () -> {
            Properties p = new Properties();
            if (!database.user().isEmpty()) {
                p.setProperty("user", database.user());
            }
            if (!database.password().isEmpty()) {
                p.setProperty("password", database.password());
            }
            p.setProperty("ApplicationName", "retrysafe-stream");
            return DriverManager.getConnection(database.jdbcUrl(dataDir), p);
        };
    }

    /** The servlet to map at {@link #PATH}. */
    public Servlet servlet() {
        return servlet;
    }

    /** This instance's stream figures for {@code GET /metrics}. */
    public Supplier<String> metricsText() {
        return () -> metrics.render(hub::open, hub::fullestBuffer, config.bufferMessages());
    }

    @Override
    public void eventsCommitted(String accountId) {
        bus.publish(new Signal.Wake(accountId));
    }

    @Override
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
