package dev.retrysafe.ratelimit.redis.internal.transport;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import java.time.Duration;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Makes the transport of a store: which connections, with which client options, and whether the
 * direct lane and shared calls are used. Each waits at most the connect timeout for its first
 * connection; a Redis that is down is no error (calls fail until it is up).
 */
public final class ScriptTransports {

    /** How soon a cluster client may refresh its layout again after a redirection or reconnect prompted it. */
    private static final Duration ADAPTIVE_REFRESH_AT_MOST_EVERY = Duration.ofSeconds(1);

    private ScriptTransports() {}

    /**
     * To the standalone Redis at {@code redisUri}, through {@code client} (which the caller owns),
     * or through a client of the transport's own when null; then, if {@code settings} allow it,
     * with a direct lane beside Lettuce.
     */
    public static ScriptTransport standalone(
            String redisUri, @Nullable RedisClient client, TransportSettings settings) {
        Duration commandTimeout = settings.commandTimeout();
        // one thread per store ends what Redis does not answer in time, on every path
        Deadlines deadlines = new Deadlines("retrysafe-rl-deadlines");
        // the lane connects in the background while the connector waits for its own connection
        DirectLane lane = null;
        LettuceTransport lettuce;
        try {
            if (settings.directConnection() && client == null) {
                lane = DirectLane.of(
                                uri(redisUri, commandTimeout),
                                settings.connectTimeout(),
                                settings.directConnectionSpin(),
                                deadlines)
                        .orElse(null);
            }
            RedisURI uri = uri(redisUri, commandTimeout);
            boolean ownsClient = client == null;
            RedisClient redis = ownsClient ? RedisClient.create() : client;
            if (ownsClient) {
                // a disconnected connection fails calls at once instead of queueing them for a
                // Redis that may be gone for minutes
                redis.setOptions(connectionOptions(
                                ClientOptions.builder(), settings, ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                        .build());
            }
            RedisConnector<?> connector =
                    RedisConnector.standalone(redis, uri, ownsClient, commandTimeout, settings.connectTimeout());
            lettuce = new LettuceTransport(connector, settings.batching(), deadlines);
        } catch (RuntimeException e) {
            if (lane != null) {
                lane.close();
            }
            deadlines.close();
            throw e;
        }
        if (lane == null) {
            return lettuce;
        }
        lane.awaitFirstAttempt();
        return new LaneFirstTransport(lane, lettuce);
    }

    /**
     * To the Redis Cluster of {@code client} (which the caller owns), or, when null, of a cluster
     * client of the transport's own made from {@code seedUris}. Calls never go together (the keys
     * of different requests are in different slots) and there is no direct lane.
     */
    public static ScriptTransport cluster(
            @Nullable List<String> seedUris, @Nullable RedisClusterClient client, TransportSettings settings) {
        Duration commandTimeout = settings.commandTimeout();
        boolean ownsClient = client == null;
        RedisClusterClient cluster = client;
        String seeds = "(the client's seeds)";
        if (cluster == null) {
            if (seedUris == null) {
                throw new IllegalArgumentException("a Redis Cluster needs seed nodes or a client");
            }
            List<RedisURI> uris =
                    seedUris.stream().map(seed -> uri(seed, commandTimeout)).toList();
            cluster = RedisClusterClient.create(uris);
            cluster.setOptions(clusterOptions(settings));
            seeds = uris.toString();
        }
        Deadlines deadlines = new Deadlines("retrysafe-rl-deadlines");
        try {
            RedisConnector<?> connector =
                    RedisConnector.cluster(cluster, seeds, ownsClient, commandTimeout, settings.connectTimeout());
            return new LettuceTransport(connector, false, deadlines);
        } catch (RuntimeException e) {
            deadlines.close();
            throw e;
        }
    }

    /**
     * A script link (no batching) to the standalone Redis at {@code redisUri}, with a direct lane
     * for a call alone when {@code settings} allow it (as {@link #standalone} makes for decisions),
     * or to the Redis Cluster of {@code clusterSeeds} when that is not null, through Lettuce only;
     * with a client of its own configured as the decision transports' are.
     */
    public static ScriptLink link(
            @Nullable String redisUri, @Nullable List<String> clusterSeeds, TransportSettings settings) {
        Duration commandTimeout = settings.commandTimeout();
        if (clusterSeeds != null) {
            List<RedisURI> uris =
                    clusterSeeds.stream().map(seed -> uri(seed, commandTimeout)).toList();
            RedisClusterClient cluster = RedisClusterClient.create(uris);
            cluster.setOptions(clusterOptions(settings));
            Deadlines deadlines = new Deadlines("retrysafe-rl-deadlines");
            try {
                return new LettuceScriptLink(
                        RedisConnector.cluster(
                                cluster, uris.toString(), true, commandTimeout, settings.connectTimeout()),
                        deadlines);
            } catch (RuntimeException e) {
                deadlines.close();
                throw e;
            }
        }
        if (redisUri == null) {
            throw new IllegalArgumentException("a Redis URI or Cluster seeds are required");
        }
        // one thread per link ends what Redis does not answer in time, on either path
        Deadlines deadlines = new Deadlines("retrysafe-rl-deadlines");
        DirectLane lane = null;
        LettuceScriptLink lettuce;
        try {
            if (settings.directConnection()) {
                // the lane connects in the background while the connector waits for its own connection
                lane = DirectLane.of(
                                uri(redisUri, commandTimeout),
                                settings.connectTimeout(),
                                settings.directConnectionSpin(),
                                deadlines)
                        .orElse(null);
            }
            RedisClient redis = RedisClient.create();
            redis.setOptions(connectionOptions(
                            ClientOptions.builder(), settings, ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                    .build());
            lettuce = new LettuceScriptLink(
                    RedisConnector.standalone(
                            redis, uri(redisUri, commandTimeout), true, commandTimeout, settings.connectTimeout()),
                    deadlines);
        } catch (RuntimeException e) {
            if (lane != null) {
                lane.close();
            }
            deadlines.close();
            throw e;
        }
        if (lane == null) {
            return lettuce;
        }
        lane.awaitFirstAttempt();
        return new LaneFirstScriptLink(lane, lettuce);
    }

    private static RedisURI uri(String text, Duration timeout) {
        RedisURI uri = RedisURI.create(text);
        uri.setTimeout(timeout);
        return uri;
    }

    /** What the transport's own clients of either kind are given. */
    private static <B extends ClientOptions.Builder> B connectionOptions(
            B options, TransportSettings settings, ClientOptions.DisconnectedBehavior whileDisconnected) {
        options.autoReconnect(true)
                .disconnectedBehavior(whileDisconnected)
                .timeoutOptions(TimeoutOptions.enabled(settings.commandTimeout()))
                .socketOptions(SocketOptions.builder()
                        .connectTimeout(settings.connectTimeout())
                        .build());
        return options;
    }

    private static ClusterClientOptions clusterOptions(TransportSettings settings) {
        ClusterTopologyRefreshOptions refresh = ClusterTopologyRefreshOptions.builder()
                .enablePeriodicRefresh(settings.topologyRefreshPeriod())
                // Lettuce 7 refreshes on every adaptive trigger by default (MOVED, ASK, persistent
                // reconnects, an unknown slot or node), so a failover or a resharding is picked up
                // at once; a burst of them (every request to a moved slot) refreshes once a second
                .adaptiveRefreshTriggersTimeout(ADAPTIVE_REFRESH_AT_MOST_EVERY)
                .build();
        // Not REJECT_COMMANDS: a cluster client opens its connection to each master on first
        // use, and Lettuce 7 then rejects the calls that wait for it, so every start and every
        // new master would fail a decision. A call to a master that is down waits at most the
        // command timeout instead, until that master's breaker opens.
        return connectionOptions(
                        ClusterClientOptions.builder(), settings, ClientOptions.DisconnectedBehavior.ACCEPT_COMMANDS)
                .topologyRefreshOptions(refresh)
                .build();
    }
}
