package dev.retrysafe.ratelimit.redis.internal;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.StringCodec;
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
 * circuit breaker lets through. Threadsafe.
 */
public final class RedisConnector implements AutoCloseable {

    private final RedisClient client;
    private final RedisURI uri;
    private final boolean ownsClient;
    private final Duration commandTimeout;
    private final Object lock = new Object();
    private @Nullable CompletableFuture<StatefulRedisConnection<String, String>> connection;
    private boolean closed;

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
        CompletableFuture<StatefulRedisConnection<String, String>> first = connect();
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
    public RedisCommands<String, String> commands() {
        CompletableFuture<StatefulRedisConnection<String, String>> current;
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
            return current.get(commandTimeout.toNanos(), TimeUnit.NANOSECONDS).sync();
        } catch (TimeoutException e) {
            throw new RedisConnectionException("still connecting to " + uri + " after " + commandTimeout, e);
        } catch (ExecutionException e) {
            throw new RedisConnectionException("cannot connect to " + uri, e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RedisConnectionException("interrupted while connecting to " + uri, e);
        }
    }

    private CompletableFuture<StatefulRedisConnection<String, String>> connect() {
        return client.connectAsync(StringCodec.UTF8, uri).toCompletableFuture().thenApply(c -> {
            // the synchronous API waits this long, whatever the URI said
            c.setTimeout(commandTimeout);
            return c;
        });
    }

    /** Closes the connection (one still under way, once it is made) and an owned client. */
    @Override
    public void close() {
        CompletableFuture<StatefulRedisConnection<String, String>> last;
        synchronized (lock) {
            if (closed) {
                return;
            }
            closed = true;
            last = connection;
            connection = null;
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
