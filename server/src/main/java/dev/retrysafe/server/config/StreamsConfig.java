package dev.retrysafe.server.config;

import java.time.Duration;

/**
 * The live event stream, {@code GET /v1/events/stream} ({@code streams} in the YAML file; see
 * {@code docs/live-events.md}).
 *
 * @param maxConnectionsPerAccount most streams one account holds open, on all instances together, 1..10000
 * @param messageLimit             messages a client may send per {@code messageWindow}, 1..100000
 * @param messageWindow            the window of {@code messageLimit}, 1s..1h
 * @param floodCloseAfter          messages dropped in a row (over the limit) before the connection
 *                                 is closed with 1008, 1..100000
 * @param maxMessageBytes          largest message a client may send (larger: closed with 1009), 64..1 MiB
 * @param bufferMessages           most messages waiting to be sent to one connection, 1..100000
 * @param bufferBytes              most bytes (UTF-8) waiting for one connection, 1 KiB..64 MiB
 * @param pingInterval             how often the server pings each connection, 10ms..1h
 * @param pongTimeout              how long a pinged connection may stay silent before it counts as
 *                                 dead and is closed, 10ms..10m
 * @param authTimeout              how long a connection without a key in its upgrade request has
 *                                 to send its {@code auth} message, 10ms..10m
 * @param maxReplay                most events a {@code resume} replays (further behind: an error),
 *                                 1..100000
 * @param pollInterval             how often the stream looks for events it was not told of
 *                                 (a lost notification), 10ms..1m
 * @param connectionLease          on PostgreSQL, how long a stream's place in its account's count lasts
 *                                 without a heartbeat of its instance (renewed every third of it);
 *                                 the places of a killed instance's streams are free after it, 1s..1h
 */
public record StreamsConfig(
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
    public StreamsConfig {
        range("streams.max_connections_per_account", maxConnectionsPerAccount, 1, 10_000);
        range("streams.message_limit", messageLimit, 1, 100_000);
        range("streams.message_window", messageWindow, Duration.ofSeconds(1), Duration.ofHours(1));
        range("streams.flood_close_after", floodCloseAfter, 1, 100_000);
        range("streams.max_message_bytes", maxMessageBytes, 64, 1024 * 1024);
        range("streams.buffer_messages", bufferMessages, 1, 100_000);
        range("streams.buffer_bytes", bufferBytes, 1024, 64 * 1024 * 1024);
        range("streams.ping_interval", pingInterval, Duration.ofMillis(10), Duration.ofHours(1));
        range("streams.pong_timeout", pongTimeout, Duration.ofMillis(10), Duration.ofMinutes(10));
        range("streams.auth_timeout", authTimeout, Duration.ofMillis(10), Duration.ofMinutes(10));
        range("streams.max_replay", maxReplay, 1, 100_000);
        range("streams.poll_interval", pollInterval, Duration.ofMillis(10), Duration.ofMinutes(1));
        range("streams.connection_lease", connectionLease, Duration.ofSeconds(1), Duration.ofHours(1));
    }

    /** A copy with another client message limit (tests). */
    public StreamsConfig withMessageLimit(int limit, Duration window, int closeAfter) {
        return new StreamsConfig(
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

    /** A copy with another send buffer (tests). */
    public StreamsConfig withBuffer(int messages, int bytes) {
        return new StreamsConfig(
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

    /** A copy with other liveness timings (tests). */
    public StreamsConfig withTimings(Duration ping, Duration pong, Duration auth) {
        return new StreamsConfig(
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

    /** A copy with another per-account connection limit (tests). */
    public StreamsConfig withMaxConnectionsPerAccount(int max) {
        return new StreamsConfig(
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

    /** A copy with another message size limit (tests). */
    public StreamsConfig withMaxMessageBytes(int bytes) {
        return new StreamsConfig(
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

    /** A copy with another replay limit (tests). */
    public StreamsConfig withMaxReplay(int events) {
        return new StreamsConfig(
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

    /** A copy with another poll interval (tests). */
    public StreamsConfig withPollInterval(Duration interval) {
        return new StreamsConfig(
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

    /** A copy with another connection lease (tests). */
    public StreamsConfig withConnectionLease(Duration lease) {
        return new StreamsConfig(
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

    private static void range(String setting, int value, int min, int max) {
        ConfigException.check(
                value >= min && value <= max, setting, "must be between " + min + " and " + max + ", was " + value);
    }

    private static void range(String setting, Duration value, Duration min, Duration max) {
        ConfigException.check(
                value.compareTo(min) >= 0 && value.compareTo(max) <= 0,
                setting,
                "must be between " + Durations.format(min) + " and " + Durations.format(max) + ", was "
                        + Durations.format(value));
    }
}
