package dev.retrysafe.ratelimit.redis.internal.transport;

import io.lettuce.core.RedisCommandInterruptedException;
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
 * A {@link ScriptLink} over one Lettuce connection (standalone or Cluster): by digest, and once
 * more with the text when the node answers {@code NOSCRIPT}, without the decision script's
 * batching and direct lane. Threadsafe.
 */
final class LettuceScriptLink implements ScriptLink {

    private final RedisConnector<?> connector;

    LettuceScriptLink(RedisConnector<?> connector) {
        this.connector = connector;
    }

    @Override
    public List<Object> run(String sha1, byte[] source, byte[][] keys, byte[][] arguments, Duration timeout) {
        RedisScriptingAsyncCommands<byte[], byte[]> redis = connector.commands();
        try {
            return await(redis.evalsha(sha1, ScriptOutputType.MULTI, keys, arguments), timeout);
        } catch (RedisNoScriptException e) {
            return await(redis.eval(source, ScriptOutputType.MULTI, keys, arguments), timeout);
        }
    }

    @Override
    public String nodeFor(byte[] key) {
        return connector.nodeFor(key);
    }

    @Override
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

    @Override
    public void close() {
        connector.close();
    }
}
