package dev.retrysafe.ratelimit.redis.internal.transport;

import io.lettuce.core.RedisCommandInterruptedException;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One Lettuce connection (standalone or Cluster) over which any script is run by its digest, and
 * once more with its text when the node answers {@code NOSCRIPT}: what the concurrency store
 * uses, without the decision script's batching and direct lane. Failures are Lettuce's
 * exceptions, as {@link ScriptTransport} describes them. Threadsafe.
 */
public final class ScriptLink implements AutoCloseable {

    private final RedisConnector<?> connector;

    ScriptLink(RedisConnector<?> connector) {
        this.connector = connector;
    }

    /**
     * Runs the script ({@code sha1} of {@code source}) with {@code keys} and {@code arguments},
     * waiting at most {@code timeout} for each command.
     *
     * @throws RedisException        when the call failed
     * @throws IllegalStateException when the link is closed
     */
    public List<Object> run(String sha1, byte[] source, byte[][] keys, byte[][] arguments, Duration timeout) {
        RedisScriptingAsyncCommands<byte[], byte[]> redis = connector.commands();
        try {
            return await(redis.evalsha(sha1, ScriptOutputType.MULTI, keys, arguments), timeout);
        } catch (RedisNoScriptException e) {
            return await(redis.eval(source, ScriptOutputType.MULTI, keys, arguments), timeout);
        }
    }

    /** The node that serves {@code key}, as {@link ScriptTransport#nodeFor} says. */
    public String nodeFor(byte[] key) {
        return connector.nodeFor(key);
    }

    /** Every node that {@link #nodeFor} may name now. */
    public Set<String> nodes() {
        return connector.nodes();
    }

    private static <T> T await(RedisFuture<T> future, Duration timeout) {
        try {
            return future.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            future.cancel(false);
            throw LettuceScripts.timedOut(timeout);
        } catch (ExecutionException e) {
            throw LettuceScripts.asRedisException(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            future.cancel(false);
            throw new RedisCommandInterruptedException(e);
        }
    }

    /** Closes the connection and the client it made. */
    @Override
    public void close() {
        connector.close();
    }
}
