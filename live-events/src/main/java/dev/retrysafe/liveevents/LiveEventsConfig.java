package dev.retrysafe.liveevents;

import java.time.Duration;

/**
 * The limits and timings of the live streams. Immutable.
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
 *                                 without a heartbeat of its instance (renewed every third of it), 1s..1h
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

    private static void within(String parameter, int value, int min, int max) {
        if (value < min || value > max) {
            throw new IllegalArgumentException(
                    parameter + " must be between " + min + " and " + max + ", was " + value);
        }
    }

    private static void within(String parameter, Duration value, Duration min, Duration max) {
        if (value.compareTo(min) < 0 || value.compareTo(max) > 0) {
            throw new IllegalArgumentException(
                    parameter + " must be between " + min + " and " + max + ", was " + value);
        }
    }
}
