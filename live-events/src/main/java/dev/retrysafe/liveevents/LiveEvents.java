package dev.retrysafe.liveevents;

import dev.retrysafe.liveevents.internal.StreamRuntime;
import jakarta.servlet.Servlet;
import java.time.Clock;
import java.util.Map;
import java.util.Objects;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * The live event streams of one instance: a WebSocket servlet to map at the application's path,
 * this instance's streams and their feed from the {@link EventSource}, and the bus that carries
 * news between instances (PostgreSQL {@code LISTEN}/{@code NOTIFY} when {@link Builder#postgres}
 * is set, in-process otherwise). It is the application's {@link StreamSignals}. On PostgreSQL the
 * per-account limit of streams is counted for all instances together, in the table
 * {@code stream_leases}. Threadsafe.
 */
public final class LiveEvents implements StreamSignals, AutoCloseable {

    private final StreamRuntime runtime;

    private LiveEvents(StreamRuntime runtime) {
        this.runtime = runtime;
    }

    /** A builder of the streams. */
    public static Builder builder() {
        return new Builder();
    }

    /** The servlet of the stream: map it at the path of the stream, behind the application's authentication. */
    public Servlet servlet() {
        return runtime.servlet();
    }

    /** Writes this instance's stream figures, read now, to {@code out}. */
    public void writeMetrics(MetricsWriter out) {
        runtime.writeMetrics(out);
    }

    @Override
    public void eventsCommitted(String accountId) {
        runtime.eventsCommitted(accountId);
    }

    @Override
    public void update(String accountId, String topic, Map<String, ?> payload) {
        runtime.update(accountId, topic, payload);
    }

    /** Stops carrying signals, closes every stream (1001), stops the feed and gives the streams' places back. */
    @Override
    public void close() {
        runtime.close();
    }

    /** Builds and starts {@link LiveEvents}. Not threadsafe; {@link #start} copies what it holds. */
    public static final class Builder {

        private @Nullable LiveEventsConfig config;
        private @Nullable EventSource events;
        private @Nullable Callers callers;
        private Clock clock = Clock.systemUTC();
        private ProblemWriter problems = ProblemWriter.plain();
        private @Nullable DataSource leases;
        private @Nullable ConnectionFactory listening;

        private Builder() {}

        /** The limits and timings (required). */
        public Builder config(LiveEventsConfig config) {
            this.config = Objects.requireNonNull(config, "config");
            return this;
        }

        /** Where the events come from (required). */
        public Builder events(EventSource events) {
            this.events = Objects.requireNonNull(events, "events");
            return this;
        }

        /** Who the callers are (required). */
        public Builder callers(Callers callers) {
            this.callers = Objects.requireNonNull(callers, "callers");
            return this;
        }

        /** The wall clock of the connection leases and of the message limits; the system's UTC clock by default. */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /** How a request that is no upgrade is answered; {@link ProblemWriter#plain()} by default. */
        public Builder problems(ProblemWriter problems) {
            this.problems = Objects.requireNonNull(problems, "problems");
            return this;
        }

        /**
         * Several instances on one PostgreSQL database: the streams of an account are counted in
         * {@code stream_leases} through {@code pool} (admissions of one account take turns under a
         * PostgreSQL advisory lock; docs/live-events.md gives the table), and signals travel by {@code LISTEN}/{@code NOTIFY} over two
         * connections from {@code connections}. Without it, one instance: counted in memory,
         * signals in-process.
         */
        public Builder postgres(DataSource pool, ConnectionFactory connections) {
            this.leases = Objects.requireNonNull(pool, "pool");
            this.listening = Objects.requireNonNull(connections, "connections");
            return this;
        }

        /**
         * Starts the feed, the pings and the bus. Start it before whatever signals it, and close
         * it after them.
         *
         * @throws IllegalStateException when the config, the events or the callers are not set
         */
        public LiveEvents start() {
            if (config == null || events == null || callers == null) {
                throw new IllegalStateException("config, events and callers are required; set: config="
                        + (config != null) + ", events=" + (events != null) + ", callers=" + (callers != null));
            }
            return new LiveEvents(StreamRuntime.start(config, events, callers, clock, problems, leases, listening));
        }
    }
}
