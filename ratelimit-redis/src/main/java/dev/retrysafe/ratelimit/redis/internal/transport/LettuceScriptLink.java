package dev.retrysafe.ratelimit.redis.internal.transport;

import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import java.time.Duration;
import java.util.List;
import java.util.Set;

/**
 * A {@link ScriptLink} over one Lettuce connection (standalone or Cluster): by digest, and once
 * more with the text when the node answers {@code NOSCRIPT}, without the decision script's
 * batching; a caller waits without a timer of its own, as a decision does ({@link Deadlines}).
 * Threadsafe.
 */
final class LettuceScriptLink implements ScriptLink {

    private final RedisConnector<?> connector;
    private final Deadlines deadlines;

    /** Calls over {@code connector}, timed by {@code deadlines}; this closes the connector and {@code deadlines}. */
    LettuceScriptLink(RedisConnector<?> connector, Deadlines deadlines) {
        this.connector = connector;
        this.deadlines = deadlines;
    }

    @Override
    public List<Object> run(String sha1, byte[] source, byte[][] keys, byte[][] arguments, Duration timeout) {
        RedisScriptingAsyncCommands<byte[], byte[]> redis = connector.commands();
        try {
            return LettuceScripts.await(
                    redis.evalsha(sha1, ScriptOutputType.MULTI, keys, arguments), timeout, deadlines);
        } catch (RedisNoScriptException e) {
            return LettuceScripts.await(
                    redis.eval(source, ScriptOutputType.MULTI, keys, arguments), timeout, deadlines);
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

    @Override
    public void close() {
        try {
            connector.close();
        } finally {
            deadlines.close();
        }
    }
}
