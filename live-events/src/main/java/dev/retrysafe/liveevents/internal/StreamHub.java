package dev.retrysafe.liveevents.internal;

import dev.retrysafe.common.MonotonicClock;
import dev.retrysafe.liveevents.Callers;
import dev.retrysafe.liveevents.LiveEventsConfig;
import dev.retrysafe.ratelimit.InMemoryRateLimitStore;
import dev.retrysafe.ratelimit.LocalRateLimiter;
import dev.retrysafe.ratelimit.Policy;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This instance's streams: it makes the connections, keeps their count per account, limits what
 * each client sends (a GCRA budget per connection, in memory: a connection lives on one
 * instance), pings them and closes the dead, and drops the sockets of clients that do not finish
 * a close. Threadsafe.
 */
final class StreamHub implements AutoCloseable {

    /** What checking a key came to. */
    sealed interface KeyCheck {
        /** The key is one of account {@code accountId}. */
        record Valid(String accountId) implements KeyCheck {}

        /** No account has this key. */
        record Invalid() implements KeyCheck {}

        /** The database could not be asked. */
        record Unavailable() implements KeyCheck {}
    }

    /** How long a closing client has to answer the close before its socket is dropped. */
    static final Duration CLOSE_GRACE = Duration.ofSeconds(2);

    private static final Logger LOG = LoggerFactory.getLogger(StreamHub.class);

    private final LiveEventsConfig config;
    private final Callers keys;
    private final EventFeed feed;
    private final Admissions admissions;
    private final StreamMetrics metrics;
    private final LocalRateLimiter limiter;
    private final Set<StreamConnection> connections = ConcurrentHashMap.newKeySet();
    private final AtomicLong ids = new AtomicLong();
    private final ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "retrysafe-stream-ticker");
        t.setDaemon(true);
        return t;
    });

    StreamHub(
            LiveEventsConfig config,
            Callers keys,
            EventFeed feed,
            Admissions admissions,
            StreamMetrics metrics,
            Clock clock) {
        this.config = config;
        this.keys = keys;
        this.feed = feed;
        this.admissions = admissions;
        this.metrics = metrics;
        this.limiter = InMemoryRateLimitStore.builder()
                .clock(clock)
                .build()
                .limiter(Policy.builder("stream-messages")
                        .limit(config.messageLimit(), config.messageWindow())
                        .build());
    }

    /** Starts pinging: every quarter of the shorter of the ping interval and the timeouts. */
    void start() {
        long period = Math.max(
                5,
                Math.min(
                                config.pingInterval().toMillis(),
                                Math.min(
                                        config.pongTimeout().toMillis(),
                                        config.authTimeout().toMillis()))
                        / 4);
        ticker.scheduleAtFixedRate(this::tick, period, period, TimeUnit.MILLISECONDS);
    }

    /** A new connection, authenticated by its upgrade request (of {@code account}) or not yet. */
    StreamConnection connection(@Nullable String account) {
        return new StreamConnection(
                this,
                "ws_" + Long.toString(ids.incrementAndGet(), 36) + "_"
                        + Long.toHexString(MonotonicClock.nanoTime() & 0xffffff),
                account);
    }

    LiveEventsConfig config() {
        return config;
    }

    StreamMetrics metrics() {
        return metrics;
    }

    /** Whether a {@code resume} may name {@code text}. */
    boolean isEventId(String text) {
        return feed.isEventId(text);
    }

    EventFeed feed() {
        return feed;
    }

    Admissions admissions() {
        return admissions;
    }

    /** Spends one message of connection {@code id}'s budget: 0 if it fits, else microseconds until one would. */
    long admitMessage(String id) {
        metrics.messagesReceived.increment();
        long wait = limiter.tryAcquireOrWaitMicros(id, 1);
        if (wait > 0) {
            metrics.messagesRateLimited.increment();
        }
        return wait;
    }

    /** Checks an API key sent in an {@code auth} message. */
    KeyCheck check(String apiKey) {
        try {
            return keys.accountOfKey(apiKey).<KeyCheck>map(KeyCheck.Valid::new).orElseGet(KeyCheck.Invalid::new);
        } catch (SQLException | RuntimeException e) {
            LOG.warn("cannot check the API key of a stream: {}", e.toString());
            return new KeyCheck.Unavailable();
        }
    }

    void opened(StreamConnection connection) {
        connections.add(connection);
        metrics.opened.increment();
    }

    void closed(StreamConnection connection, int code) {
        // the place is given back before the connection leaves the gauge: once the gauge shows
        // it gone, a new stream of the account finds the place free, on any instance
        if (connection.release()) {
            feed.unsubscribe(connection);
        }
        if (connections.remove(connection)) {
            metrics.closed(code);
        }
    }

    /** The place of connection {@code id} in its account's count was lost: it is closed. */
    void placeLost(String id) {
        for (StreamConnection c : connections) {
            if (c.id().equals(id)) {
                c.placeLost();
            }
        }
    }

    /** Drops {@code connection}'s socket after {@link #CLOSE_GRACE} unless its close ended by then. */
    void disconnectLater(StreamConnection connection) {
        try {
            ticker.schedule(connection::disconnect, CLOSE_GRACE.toMillis(), TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            connection.disconnect(); // stopping
        }
    }

    /** Open connections now. */
    int open() {
        return connections.size();
    }

    /** Frames waiting in the fullest buffer now. */
    int fullestBuffer() {
        int max = 0;
        for (StreamConnection c : connections) {
            max = Math.max(max, c.buffered());
        }
        return max;
    }

    private void tick() {
        long now = MonotonicClock.nanoTime();
        for (StreamConnection c : connections) {
            try {
                c.tick(now);
            } catch (RuntimeException e) {
                LOG.warn("stream {}: liveness check failed: {}", c.id(), e.toString());
            }
        }
    }

    @Override
    public void close() {
        ticker.shutdownNow();
        for (StreamConnection c : connections) {
            c.close(StreamConnection.GOING_AWAY, "server stopping");
            c.disconnect();
        }
    }
}
