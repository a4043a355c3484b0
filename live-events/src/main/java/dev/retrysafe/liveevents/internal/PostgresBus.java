package dev.retrysafe.liveevents.internal;

import dev.retrysafe.common.MonotonicClock;
import dev.retrysafe.liveevents.ConnectionFactory;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The bus of several instances on one PostgreSQL database: {@code LISTEN}/{@code NOTIFY} on the
 * channel {@value #CHANNEL}. A signal reaches this instance's feed at once; a publisher thread
 * sends whatever has gathered meanwhile as one {@code NOTIFY} (so a burst costs a few
 * notifications, not one each) on a connection of its own, and a listener thread on another
 * connection hands the other instances' signals to the feed. Notifications are at least 5 ms apart
 * (a signal waits at most that long for the ones that follow), so that under load a payment does not
 * cost a transaction of its own to announce it. Signals carry no event, only news of
 * one: the feed reads the events from the database, so a notification lost to a broken
 * connection costs latency (the poll, or the poll at once that every reconnection asks for), never
 * an event. Threadsafe.
 */
final class PostgresBus implements Bus {

    /** The channel every instance listens on. */
    static final String CHANNEL = "retrysafe_stream";

    private static final Logger LOG = LoggerFactory.getLogger(PostgresBus.class);
    private static final int QUEUE_LIMIT = 10_000;
    private static final Duration RECONNECT_PAUSE = Duration.ofMillis(500);
    private static final int LISTEN_WAIT_MILLIS = 500;
    /** Least time between two notifications sent: at most 200 a second, whatever the load. */
    private static final long NOTIFY_SPACING_NANOS = Duration.ofMillis(5).toNanos();

    private final ConnectionFactory connector;
    private final Consumer<Signal> local;
    private final Runnable missed;
    private final StreamMetrics metrics;
    private final String instance;
    private final LinkedBlockingQueue<Signal> outgoing = new LinkedBlockingQueue<>(QUEUE_LIMIT);
    private final Thread publisher;
    private final Thread listener;
    private volatile boolean running = true;
    private volatile @Nullable Connection publishing;
    private volatile @Nullable Connection listening;
    private final SparseWarning warning = new SparseWarning(LOG);

    /**
     * The bus of the instance named {@code instance} (unique among the instances): its signals go
     * to {@code local} here and, through {@code connector}'s connections, to every other instance;
     * {@code missed} runs whenever signals may have been lost.
     */
    PostgresBus(
            String instance,
            ConnectionFactory connector,
            Consumer<Signal> local,
            Runnable missed,
            StreamMetrics metrics) {
        this.instance = instance;
        this.connector = connector;
        this.local = local;
        this.missed = missed;
        this.metrics = metrics;
        this.publisher =
                Thread.ofPlatform().daemon().name("retrysafe-stream-notify").unstarted(this::publish);
        this.listener =
                Thread.ofPlatform().daemon().name("retrysafe-stream-listen").unstarted(this::listen);
    }

    /** Starts both threads. */
    void start() {
        publisher.start();
        listener.start();
    }

    @Override
    public void publish(Signal signal) {
        if (!running) {
            return;
        }
        local.accept(signal);
        if (!outgoing.offer(signal)) {
            metrics.signalsDropped.increment();
        }
    }

    private void publish() {
        List<Signal> batch = new ArrayList<>();
        long nextNotify = MonotonicClock.nanoTime();
        while (running) {
            batch.clear();
            try {
                batch.add(outgoing.take());
                // under load, signals gather for a moment rather than costing one NOTIFY (a
                // transaction, and a wake-up of every listening instance) each
                long early = nextNotify - MonotonicClock.nanoTime();
                if (early > 0) {
                    Thread.sleep(Duration.ofNanos(early));
                }
            } catch (InterruptedException e) {
                return;
            }
            nextNotify = MonotonicClock.nanoTime() + NOTIFY_SPACING_NANOS;
            outgoing.drainTo(batch, 999);
            for (String payload : NotifyPayload.encode(instance, batch, metrics.signalsDropped::increment)) {
                notify(payload);
            }
        }
    }

    private void notify(String payload) {
        try {
            Connection c = publishing;
            if (c == null) {
                c = connector.connect();
                try (Statement s = c.createStatement()) {
                    s.execute("SET synchronous_commit = off"); // a notification holds no data to lose
                }
                publishing = c;
            }
            try (PreparedStatement s = c.prepareStatement("SELECT pg_notify(?, ?)")) {
                s.setString(1, CHANNEL);
                s.setString(2, payload);
                s.execute();
            }
        } catch (SQLException e) {
            metrics.signalsDropped.increment();
            closeQuietly(publishing);
            publishing = null;
            warn("cannot notify the other instances", e);
            pause();
        }
    }

    private void listen() {
        while (running) {
            Connection c = null;
            try {
                c = connector.connect();
                try (Statement s = c.createStatement()) {
                    s.execute("LISTEN " + CHANNEL);
                }
                listening = c;
                missed.run(); // whatever was sent while nobody listened
                PGConnection pg = c.unwrap(PGConnection.class);
                while (running) {
                    PGNotification[] notifications = pg.getNotifications(LISTEN_WAIT_MILLIS);
                    if (notifications == null) {
                        continue;
                    }
                    for (PGNotification n : notifications) {
                        NotifyPayload.Decoded decoded = NotifyPayload.decode(n.getParameter());
                        if (!decoded.from().equals(instance)) {
                            decoded.signals().forEach(local);
                        }
                    }
                }
            } catch (SQLException e) {
                if (running) {
                    warn("lost the notifications of the other instances; reconnecting", e);
                    pause();
                }
            } finally {
                listening = null;
                closeQuietly(c);
            }
        }
    }

    private void pause() {
        try {
            TimeUnit.MILLISECONDS.sleep(RECONNECT_PAUSE.toMillis()); // a background retry, not a test
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            running = false;
        }
    }

    private void warn(String what, SQLException e) {
        warning.warn("live streams: {}: {}", what, e.toString());
    }

    @Override
    public void close() {
        running = false;
        publisher.interrupt();
        closeQuietly(listening); // ends the listener's wait
        listener.interrupt();
        join(publisher);
        join(listener);
        closeQuietly(publishing);
    }

    private static void join(Thread t) {
        try {
            t.join(Duration.ofSeconds(5));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void closeQuietly(@Nullable Connection c) {
        if (c != null) {
            try {
                c.close();
            } catch (SQLException e) {
                // closing what failed: nothing left to do
            }
        }
    }
}
