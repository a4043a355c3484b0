package dev.retrysafe.liveevents;

import java.time.Duration;

/**
 * The limits and timings of the live streams. Immutable. A value outside its bounds (given
 * below) is refused with {@link OutOfRange}, which names the parameter and its bounds so that an
 * application can say it in the words of its own configuration.
 *
 * @param maxConnectionsPerAccount most streams one account holds open, on all instances together, 1..10000
 * @param messageLimit             messages a client may send per {@code messageWindow}, 1..100000
 * @param messageWindow            the window of {@code messageLimit}, 1s..1h
 * @param floodCloseAfter          messages dropped in a row (over the limit) before the connection
 *                                 is closed with 1008, 1..100000
 * @param maxMessageBytes          largest message a client may send (larger: closed with 1009), 64..1 MiB
 * @param bufferMessages           most messages waiting to be sent to one connection, 1..100000
 * @param bufferBytes              most bytes (UTF-8) waiting for one connection, 1 KiB..64 MiB
 * @param pingInterval             how often each connection is pinged, 10ms..1h
 * @param pongTimeout              how long a pinged connection may stay silent before it counts as
 *                                 dead and is closed, 10ms..10m
 * @param authTimeout              how long a connection not authenticated by its upgrade request
 *                                 has to send its {@code auth} message, 10ms..10m
 * @param maxReplay                most events a {@code resume} replays (further behind: an error), 1..100000
 * @param pollInterval             how often the streams look for events they were not told of
 *                                 (a lost signal), 10ms..1m
 * @param connectionLease          on PostgreSQL, how long a stream's place in its account's count lasts
 *                                 without a heartbeat of its instance (renewed every third of it);
 *                                 the places of a killed instance's streams are free after it, 1s..1h
 */
public record LiveEventsConfig(
        int maxConnectionsPerAccount,
        int messageLimit,
        Duration messageWindow,
        int floodCloseAfter,
        int maxMessageBytes,
        int bufferMessages,
        int bufferBytes,
        Duration pingInterval,
        Duration pongTimeout,
        Duration authTimeout,
        int maxReplay,
        Duration pollInterval,
        Duration connectionLease) {

    /** Checks every value. */
    public LiveEventsConfig {
        within("maxConnectionsPerAccount", maxConnectionsPerAccount, 1, 10_000);
        within("messageLimit", messageLimit, 1, 100_000);
        within("messageWindow", messageWindow, Duration.ofSeconds(1), Duration.ofHours(1));
        within("floodCloseAfter", floodCloseAfter, 1, 100_000);
        within("maxMessageBytes", maxMessageBytes, 64, 1024 * 1024);
        within("bufferMessages", bufferMessages, 1, 100_000);
        within("bufferBytes", bufferBytes, 1024, 64 * 1024 * 1024);
        within("pingInterval", pingInterval, Duration.ofMillis(10), Duration.ofHours(1));
        within("pongTimeout", pongTimeout, Duration.ofMillis(10), Duration.ofMinutes(10));
        within("authTimeout", authTimeout, Duration.ofMillis(10), Duration.ofMinutes(10));
        within("maxReplay", maxReplay, 1, 100_000);
        within("pollInterval", pollInterval, Duration.ofMillis(10), Duration.ofMinutes(1));
        within("connectionLease", connectionLease, Duration.ofSeconds(1), Duration.ofHours(1));
    }

    /** A copy with another client message limit. */
    public LiveEventsConfig withMessageLimit(int limit, Duration window, int closeAfter) {
        return new LiveEventsConfig(
                maxConnectionsPerAccount,
                limit,
                window,
                closeAfter,
                maxMessageBytes,
                bufferMessages,
                bufferBytes,
                pingInterval,
                pongTimeout,
                authTimeout,
                maxReplay,
                pollInterval,
                connectionLease);
    }

    /** A copy with another send buffer. */
    public LiveEventsConfig withBuffer(int messages, int bytes) {
        return new LiveEventsConfig(
                maxConnectionsPerAccount,
                messageLimit,
                messageWindow,
                floodCloseAfter,
                maxMessageBytes,
                messages,
                bytes,
                pingInterval,
                pongTimeout,
                authTimeout,
                maxReplay,
                pollInterval,
                connectionLease);
    }

    /** A copy with other liveness timings. */
    public LiveEventsConfig withTimings(Duration ping, Duration pong, Duration auth) {
        return new LiveEventsConfig(
                maxConnectionsPerAccount,
                messageLimit,
                messageWindow,
                floodCloseAfter,
                maxMessageBytes,
                bufferMessages,
                bufferBytes,
                ping,
                pong,
                auth,
                maxReplay,
                pollInterval,
                connectionLease);
    }

    /** A copy with another per-account connection limit. */
    public LiveEventsConfig withMaxConnectionsPerAccount(int max) {
        return new LiveEventsConfig(
                max,
                messageLimit,
                messageWindow,
                floodCloseAfter,
                maxMessageBytes,
                bufferMessages,
                bufferBytes,
                pingInterval,
                pongTimeout,
                authTimeout,
                maxReplay,
                pollInterval,
                connectionLease);
    }

    /** A copy with another message size limit. */
    public LiveEventsConfig withMaxMessageBytes(int bytes) {
        return new LiveEventsConfig(
                maxConnectionsPerAccount,
                messageLimit,
                messageWindow,
                floodCloseAfter,
                bytes,
                bufferMessages,
                bufferBytes,
                pingInterval,
                pongTimeout,
                authTimeout,
                maxReplay,
                pollInterval,
                connectionLease);
    }

    /** A copy with another replay limit. */
    public LiveEventsConfig withMaxReplay(int events) {
        return new LiveEventsConfig(
                maxConnectionsPerAccount,
                messageLimit,
                messageWindow,
                floodCloseAfter,
                maxMessageBytes,
                bufferMessages,
                bufferBytes,
                pingInterval,
                pongTimeout,
                authTimeout,
                events,
                pollInterval,
                connectionLease);
    }

    /** A copy with another poll interval. */
    public LiveEventsConfig withPollInterval(Duration interval) {
        return new LiveEventsConfig(
                maxConnectionsPerAccount,
                messageLimit,
                messageWindow,
                floodCloseAfter,
                maxMessageBytes,
                bufferMessages,
                bufferBytes,
                pingInterval,
                pongTimeout,
                authTimeout,
                maxReplay,
                interval,
                connectionLease);
    }

    /** A copy with another connection lease. */
    public LiveEventsConfig withConnectionLease(Duration lease) {
        return new LiveEventsConfig(
                maxConnectionsPerAccount,
                messageLimit,
                messageWindow,
                floodCloseAfter,
                maxMessageBytes,
                bufferMessages,
                bufferBytes,
                pingInterval,
                pongTimeout,
                authTimeout,
                maxReplay,
                pollInterval,
                lease);
    }

    /**
     * A parameter outside its bounds: {@link #parameter()} is the record component's name; the
     * bounds and the value are {@link Integer}s or {@link Duration}s, as the component is.
     */
    public static final class OutOfRange extends IllegalArgumentException {
        private static final long serialVersionUID = 1L;

        private final String parameter;
        private final transient Object min;
        private final transient Object max;
        private final transient Object value;

        OutOfRange(String parameter, Object min, Object max, Object value) {
            super(parameter + " must be between " + min + " and " + max + ", was " + value);
            this.parameter = parameter;
            this.min = min;
            this.max = max;
            this.value = value;
        }

        /** The record component's name, e.g. {@code maxConnectionsPerAccount}. */
        public String parameter() {
            return parameter;
        }

        /** The least value allowed. */
        public Object min() {
            return min;
        }

        /** The greatest value allowed. */
        public Object max() {
            return max;
        }

        /** The value refused. */
        public Object value() {
            return value;
        }
    }

    private static void within(String parameter, int value, int min, int max) {
        if (value < min || value > max) {
            throw new OutOfRange(parameter, min, max, value);
        }
    }

    private static void within(String parameter, Duration value, Duration min, Duration max) {
        if (value.compareTo(min) < 0 || value.compareTo(max) > 0) {
            throw new OutOfRange(parameter, min, max, value);
        }
    }
}
