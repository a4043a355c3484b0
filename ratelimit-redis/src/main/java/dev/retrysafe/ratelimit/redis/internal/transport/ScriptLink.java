package dev.retrysafe.ratelimit.redis.internal.transport;

import io.lettuce.core.RedisException;
import java.time.Duration;
import java.util.List;
import java.util.Set;

/**
 * How a script other than the decision script (the concurrency store's) reaches Redis: run by its
 * digest, sent as text where a node lacks it. Failures are Lettuce's exceptions, as
 * {@link ScriptTransport} describes them. Implementations are threadsafe
 * ({@link ScriptTransports#link} makes them).
 */
public interface ScriptLink extends AutoCloseable {

    /**
     * Runs the script ({@code sha1} of {@code source}) with {@code keys} and {@code arguments},
     * waiting at most {@code timeout} for its answer.
     *
     * @throws RedisException        when the call failed
     * @throws IllegalStateException when the link is closed
     */
    List<Object> run(String sha1, byte[] source, byte[][] keys, byte[][] arguments, Duration timeout);

    /** The node that serves {@code key}, as {@link ScriptTransport#nodeFor} says. */
    String nodeFor(byte[] key);

    /** Every node that {@link #nodeFor} may name now. */
    Set<String> nodes();

    /** Closes the connection and the client it made. */
    @Override
    void close();
}
