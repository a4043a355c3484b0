package dev.retrysafe.ratelimit.redis.internal.transport;

import dev.retrysafe.ratelimit.redis.internal.ScriptCall;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Calls through Lettuce's one multiplexed connection: together with whatever other decisions are
 * under way ({@link ScriptBatches}), or each in a command of its own where calls cannot be joined
 * (a Cluster, a time source, batching turned off). Threadsafe.
 */
final class LettuceTransport implements ScriptTransport {

    private final RedisConnector<?> connector;
    /** Where calls go together, or null where each goes alone. */
    private final @Nullable ScriptBatches batches;
    /** Fails the commands that are not answered in time, so that no caller waits with a timer of its own. */
    private final Deadlines deadlines;

    /** Calls over {@code connector}, joined when {@code batching}; this closes the connector and {@code deadlines}. */
    LettuceTransport(RedisConnector<?> connector, boolean batching, Deadlines deadlines) {
        this.connector = connector;
        this.deadlines = deadlines;
        this.batches = batching ? new ScriptBatches(connector::commands, deadlines) : null;
    }

    /** Nothing to count: every call goes the same way. */
    @Override
    public void decisionStarted() {}

    @Override
    public void decisionEnded() {}

    @Override
    public List<Object> run(ScriptCall call, Duration timeout) {
        ScriptBatches joined = batches;
        // an answer from a joint call is this request's part of the reply, so no copy is made
        return joined != null
                ? joined.run(call, timeout)
                : LettuceScripts.run(connector.commands(), call, timeout, deadlines);
    }

    /** Whether a call now would be alone: no joint call is on its way and none waits to go. */
    boolean idle() {
        ScriptBatches joined = batches;
        return joined == null || joined.idle();
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
            // its thread ends once what is under way is answered or timed out
            deadlines.close();
        }
    }
}
