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
import java.util.function.Supplier;
import javax.sql.DataSource;

/**
 * The live event stream as the server runs it: the WebSocket servlet of {@value #PATH}, this
 * instance's streams and their feed, and the bus that carries news between instances
 * (PostgreSQL {@code LISTEN}/{@code NOTIFY} on PostgreSQL, in-process in the embedded mode). It
 * is also the server's {@link StreamSignals}. Threadsafe.
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

    private LiveEvents(StreamsConfig config, StreamMetrics metrics, EventFeed feed, StreamHub hub, Bus bus) {
        this.config = config;
        this.metrics = metrics;
        this.feed = feed;
        this.hub = hub;
        this.bus = bus;
        this.servlet = new StreamServlet(hub);
    }

    /**
     * Starts the feed, the hub's pings and the bus over {@code dataSource}; the result joins
     * {@code resources} (start it before whatever signals it, so that it closes after them).
     */
    public static LiveEvents start(ServerConfig config, DataSource dataSource, KeyLookup keys, Clock clock,
                                   List<AutoCloseable> resources) {
        StreamsConfig settings = config.streams();
        StreamMetrics metrics = new StreamMetrics();
        Admissions admissions = new Admissions(settings.maxConnectionsPerAccount());
        EventFeed feed = new EventFeed(settings, new Transactions(dataSource), metrics, admissions::watched);
        StreamHub hub = new StreamHub(settings, keys, feed, admissions, metrics, clock);
        Bus bus;
        String url = config.database().jdbcUrl(config.dataDir());
        if (url.startsWith("jdbc:postgresql:")) {
            PostgresBus postgres = new PostgresBus(connector(config.database(), config.dataDir()), feed::signal,
                    feed::pollNow, metrics);
            postgres.start();
            bus = postgres;
        } else {
            bus = new LocalBus(feed::signal);
        }
        feed.start();
        hub.start();
        LiveEvents live = new LiveEvents(settings, metrics, feed, hub, bus);
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

    /** Stops carrying signals, closes every stream (1001) and stops the feed. */
    @Override
    public void close() {
        bus.close();
        hub.close();
        feed.close();
    }
}
