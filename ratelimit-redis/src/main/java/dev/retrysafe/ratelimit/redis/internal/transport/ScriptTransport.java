package dev.retrysafe.ratelimit.redis.internal.transport;

import dev.retrysafe.ratelimit.redis.internal.ScriptCall;
import dev.retrysafe.ratelimit.redis.internal.ScriptReply;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisException;
import java.time.Duration;
import java.util.List;
import java.util.Set;

/**
 * How a decision's {@code decide.lua} call reaches Redis and its reply comes back: all that the
 * decisions (the circuit breaker, the fail modes) know of the connections. Whichever way a call
 * goes, it fails the same way, with Lettuce's exceptions: a {@link RedisCommandExecutionException}
 * when Redis answered with an error, a {@link RedisCommandTimeoutException} when it did not answer
 * in time, another {@link RedisException} when it could not be reached. The script is run by its
 * digest and sent once more as text where Redis lacks it, so there is no separate load step.
 * Implementations are threadsafe ({@link ScriptTransports} makes them).
 */
public interface ScriptTransport extends AutoCloseable {

    /** The node of a standalone Redis, and of a Cluster whose layout is not known yet. */
    String ANY_NODE = "";

    /**
     * Marks a decision under way, from its start (before its time is read and its call made) to
     * its answer ({@link #decisionEnded}), whether or not it makes a call: a transport may choose
     * the way of a call by how many decisions are under way.
     */
    void decisionStarted();

    /** Ends what {@link #decisionStarted} began, once for each. */
    void decisionEnded();

    /**
     * Runs the script for {@code call}, waiting at most {@code timeout} for its answer.
     *
     * @return this call's reply: Redis's time first, then the request's figures from
     *         {@link ScriptReply#FIRST} on
     * @throws RedisException        when the call failed (see above)
     * @throws IllegalStateException when the transport is closed
     */
    List<Object> run(ScriptCall call, Duration timeout);

    /**
     * The node that serves {@code key} as far as the transport knows: a Cluster master's id, or
     * {@link #ANY_NODE} for a standalone Redis and before the first connection.
     */
    String nodeFor(byte[] key);

    /** Every node that {@link #nodeFor} may name now. */
    Set<String> nodes();

    /** Closes the connections (and a client the transport created). */
    @Override
    void close();
}
