package dev.retrysafe.ratelimit.redis.internal;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;

/**
 * The one connection a store multiplexes all its calls over. It connects in the background so
 * that a store can be built (and fail open) while Redis is down; once connected, Lettuce
 * reconnects by itself. A first connection that fails is tried again on the next call the
 * circuit breaker lets through. Keys and arguments are bytes (the store encodes them itself), and
 * calls are asynchronous: the caller waits on the call's future, which spares the synchronous
 * API's reflective proxy. Once connected, getting the connection takes no lock. Threadsafe.
 */
public final class RedisConnector implements AutoCloseable {

    private final RedisClient client;
    private final RedisURI uri;
    private final boolean ownsClient;
    private final Duration commandTimeout;
    private final Object lock = new Object();
    private @Nullable CompletableFuture<StatefulRedisConnection<byte[], byte[]>> connection;
    private boolean closed;
    /** The connection once made, until closed: what almost every call finds. */
    private volatile @Nullable StatefulRedisConnection<byte[], byte[]> connected;

    /**
     * A connector that connects at once, waiting up to {@code firstConnectWait} for it: the
     * first connection of a JVM (class loading, event loops) takes longer than a command timeout,
     * and the first decisions should not fail open for that. A Redis that is down is no error:
     * the connector goes on without a connection.
     *
     * @param ownsClient       whether {@link #close()} shuts {@code client} down too
     * @param commandTimeout   how long a call waits for an answer, and for a connection under way
     * @param firstConnectWait how long the constructor waits for the first connection
     */
    public RedisConnector(RedisClient client, RedisURI uri, boolean ownsClient, Duration commandTimeout,
            Duration firstConnectWait) {
        this.client = client;
        this.uri = uri;
        this.ownsClient = ownsClient;
        this.commandTimeout = commandTimeout;
        CompletableFuture<StatefulRedisConnection<byte[], byte[]>> first = connect();
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
     * The commands of the connection, waiting at most the command timeout for a connection under
     * way.
     *
     * @throws RedisConnectionException when there is no connection (yet)
     */
    public RedisAsyncCommands<byte[], byte[]> commands() {
        StatefulRedisConnection<byte[], byte[]> ready = connected;
        if (ready != null) {
            return ready.async();
        }
        CompletableFuture<StatefulRedisConnection<byte[], byte[]>> current;
        synchronized (lock) {
            if (closed) {
                throw new IllegalStateException("the Redis rate-limit store is closed");
            }
            current = connection;
            if (current == null || current.isCompletedExceptionally()) {
                current = connect();
                connection = current;
            }
        }
        try {
            StatefulRedisConnection<byte[], byte[]> made = current.get(commandTimeout.toNanos(), TimeUnit.NANOSECONDS);
            synchronized (lock) {
                if (!closed && connection == current) {
                    connected = made;
                }
            }
            return made.async();
        } catch (TimeoutException e) {
            throw new RedisConnectionException("still connecting to " + uri + " after " + commandTimeout, e);
        } catch (ExecutionException e) {
            throw new RedisConnectionException("cannot connect to " + uri, e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RedisConnectionException("interrupted while connecting to " + uri, e);
        }
    }

    /** How long a call waits for its answer. */
    public Duration commandTimeout() {
        return commandTimeout;
    }

    private CompletableFuture<StatefulRedisConnection<byte[], byte[]>> connect() {
        return client.connectAsync(ByteArrayCodec.INSTANCE, uri).toCompletableFuture().thenApply(c -> {
            c.setTimeout(commandTimeout);
            return c;
        });
    }

    /** Closes the connection (one still under way, once it is made) and an owned client. */
    @Override
    public void close() {
        CompletableFuture<StatefulRedisConnection<byte[], byte[]>> last;
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
            last.thenAccept(StatefulRedisConnection::close);
        }
        if (ownsClient) {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
    }
}
