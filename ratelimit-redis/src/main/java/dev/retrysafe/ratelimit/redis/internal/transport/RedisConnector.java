package dev.retrysafe.ratelimit.redis.internal.transport;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.codec.ByteArrayCodec;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * The one connection a store multiplexes all its calls over: to a standalone Redis, or to a
 * Redis Cluster (whose connection routes each call to the master of its keys' slot and follows
 * {@code MOVED} and {@code ASK} itself). Both give the same scripting commands, so everything
 * above this class is one code path; what differs is how to connect, and which node serves a key
 * ({@link #nodeFor}), by which the store keeps a circuit breaker per node.
 *
 * <p>It connects in the background so that a store can be built (and fail open) while Redis is
 * down; once connected, Lettuce reconnects by itself. A first connection that fails is tried again
 * on the next call the circuit breaker lets through. Keys and arguments are bytes (the store
 * encodes them itself), and calls are asynchronous: the caller waits on the call's future, which
 * spares the synchronous API's reflective proxy. Once connected, getting the connection takes no
 * lock. Threadsafe.
 *
 * @param <C> the kind of connection
 */
final class RedisConnector<C extends StatefulConnection<byte[], byte[]>> implements AutoCloseable {

    private final AbstractRedisClient client;
    private final String target;
    private final Supplier<CompletableFuture<C>> connect;
    private final Function<C, RedisScriptingAsyncCommands<byte[], byte[]>> commands;
    private final BiFunction<C, byte[], String> nodeOfKey;
    private final Function<C, Set<String>> nodes;
    private final boolean ownsClient;
    private final Duration commandTimeout;
    private final boolean cluster;
    private final Object lock = new Object();
    private @Nullable CompletableFuture<C> connection;
    private boolean closed;
    /** The connection once made, until closed: what almost every call finds. */
    private volatile @Nullable C connected;

    private RedisConnector(
            AbstractRedisClient client,
            String target,
            Supplier<CompletableFuture<C>> connect,
            Function<C, RedisScriptingAsyncCommands<byte[], byte[]>> commands,
            BiFunction<C, byte[], String> nodeOfKey,
            Function<C, Set<String>> nodes,
            boolean ownsClient,
            Duration commandTimeout,
            Duration firstConnectWait,
            boolean cluster) {
        this.client = client;
        this.target = target;
        this.connect = () -> connect.get().thenApply(c -> {
            c.setTimeout(commandTimeout);
            return c;
        });
        this.commands = commands;
        this.nodeOfKey = nodeOfKey;
        this.nodes = nodes;
        this.ownsClient = ownsClient;
        this.commandTimeout = commandTimeout;
        this.cluster = cluster;
        CompletableFuture<C> first = this.connect.get();
        synchronized (lock) {
            connection = first;
        }
        try {
            first.get(firstConnectWait.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException | ExecutionException e) {
            // not connected yet: decisions fail by their policies' modes until it is
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * A connector to the standalone Redis at {@code uri} that connects at once, waiting up to
     * {@code firstConnectWait} for it: the first connection of a JVM (class loading, event loops)
     * takes longer than a command timeout, and the first decisions should not fail open for that.
     * A Redis that is down is no error: the connector goes on without a connection.
     *
     * @param ownsClient       whether {@link #close()} shuts {@code client} down too
     * @param commandTimeout   how long a call waits for an answer, and for a connection under way
     * @param firstConnectWait how long this waits for the first connection
     */
    public static RedisConnector<StatefulRedisConnection<byte[], byte[]>> standalone(
            RedisClient client, RedisURI uri, boolean ownsClient, Duration commandTimeout, Duration firstConnectWait) {
        return new RedisConnector<>(
                client,
                uri.toString(),
                () -> client.connectAsync(ByteArrayCodec.INSTANCE, uri).toCompletableFuture(),
                StatefulRedisConnection::async,
                (c, key) -> ScriptTransport.ANY_NODE,
                c -> Set.of(ScriptTransport.ANY_NODE),
                ownsClient,
                commandTimeout,
                firstConnectWait,
                false);
    }

    /**
     * A connector to the Redis Cluster that {@code client} knows the seed nodes of, connecting
     * as {@link #standalone} does. Keys are mapped to the master that serves their slot in the
     * client's current view of the cluster.
     */
    public static RedisConnector<StatefulRedisClusterConnection<byte[], byte[]>> cluster(
            RedisClusterClient client,
            String seeds,
            boolean ownsClient,
            Duration commandTimeout,
            Duration firstConnectWait) {
        return new RedisConnector<>(
                client,
                "Redis Cluster " + seeds,
                // a cluster connection needs the layout first, which the client loads from a seed
                () -> client.refreshPartitionsAsync()
                        .toCompletableFuture()
                        .thenCompose(loaded -> client.connectAsync(ByteArrayCodec.INSTANCE))
                        .thenCompose(RedisConnector::connectToMasters),
                StatefulRedisClusterConnection::async,
                RedisConnector::masterOf,
                RedisConnector::masters,
                ownsClient,
                commandTimeout,
                firstConnectWait,
                true);
    }

    /**
     * Opens the connection to every master now, which Lettuce would open on the first call to it,
     * so that the first decisions do not wait for it (these are the connections that calls with
     * keys are routed over: by host and port). A master that cannot be reached is no error: its
     * partitions fail by their modes.
     */
    private static CompletableFuture<StatefulRedisClusterConnection<byte[], byte[]>> connectToMasters(
            StatefulRedisClusterConnection<byte[], byte[]> c) {
        CompletableFuture<?>[] masters = c.getPartitions().getPartitions().stream()
                .filter(node -> node.is(RedisClusterNode.NodeFlag.UPSTREAM))
                .map(node -> c.getConnectionAsync(
                        node.getUri().getHost(), node.getUri().getPort()))
                .toArray(CompletableFuture<?>[]::new);
        return CompletableFuture.allOf(masters).handle((connected, unreachable) -> c);
    }

    private static String masterOf(StatefulRedisClusterConnection<byte[], byte[]> c, byte[] key) {
        RedisClusterNode master = c.getPartitions().getMasterBySlot(SlotHash.getSlot(key));
        return master == null ? ScriptTransport.ANY_NODE : master.getNodeId();
    }

    /** The masters that serve slots (a failed master that a replica replaced serves none). */
    private static Set<String> masters(StatefulRedisClusterConnection<byte[], byte[]> c) {
        return c.getPartitions().getPartitions().stream()
                .filter(node -> node.is(RedisClusterNode.NodeFlag.UPSTREAM) && !node.hasNoSlots())
                .map(RedisClusterNode::getNodeId)
                .collect(Collectors.toSet());
    }

    /**
     * The commands of the connection, waiting at most the command timeout for a connection under
     * way.
     *
     * @throws RedisConnectionException when there is no connection (yet)
     */
    public RedisScriptingAsyncCommands<byte[], byte[]> commands() {
        C ready = connected;
        if (ready != null) {
            return commands.apply(ready);
        }
        CompletableFuture<C> current;
        synchronized (lock) {
            if (closed) {
                throw new IllegalStateException("the Redis rate-limit store is closed");
            }
            current = connection;
            if (current == null || current.isCompletedExceptionally()) {
                current = connect.get();
                connection = current;
            }
        }
        try {
            C made = current.get(commandTimeout.toNanos(), TimeUnit.NANOSECONDS);
            synchronized (lock) {
                if (!closed && connection == current) {
                    connected = made;
                }
            }
            return commands.apply(made);
        } catch (TimeoutException e) {
            throw new RedisConnectionException("still connecting to " + target + " after " + commandTimeout, e);
        } catch (ExecutionException e) {
            throw new RedisConnectionException("cannot connect to " + target, e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RedisConnectionException("interrupted while connecting to " + target, e);
        }
    }

    /**
     * The node that serves {@code key} as far as the connection knows: a Cluster master's id, or
     * {@link #ScriptTransport.ANY_NODE} for a standalone Redis and before the first connection.
     */
    public String nodeFor(byte[] key) {
        C ready = connected;
        return ready == null ? ScriptTransport.ANY_NODE : nodeOfKey.apply(ready, key);
    }

    /** Every node that {@link #nodeFor} may name now. */
    public Set<String> nodes() {
        C ready = connected;
        return ready == null ? Set.of(ScriptTransport.ANY_NODE) : nodes.apply(ready);
    }

    /** Whether this is a Redis Cluster's connection (whose calls must keep to one slot each). */
    public boolean cluster() {
        return cluster;
    }

    /** How long a call waits for its answer. */
    public Duration commandTimeout() {
        return commandTimeout;
    }

    /** Closes the connection (one still under way, once it is made) and an owned client. */
    @Override
    public void close() {
        CompletableFuture<C> last;
        synchronized (lock) {
            if (closed) {
                return;
            }
            closed = true;
            last = connection;
            connection = null;
            connected = null;
        }
        if (last != null) {
            // at once if connected; a connection still under way is closed when it is made
            last.thenAccept(StatefulConnection::close);
        }
        if (ownsClient) {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
    }
}
