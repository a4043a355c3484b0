package dev.retrysafe.ratelimit.redis.internal;

import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisCredentials;
import io.lettuce.core.RedisCredentialsProvider;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.RedisURI;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * A second, plain connection to a standalone Redis on which a decision goes when it finds the
 * connection free: the caller writes its script call and reads the reply on its own thread, where
 * a call through Lettuce hands the command to Lettuce's event loop and waits to be woken with the
 * answer. Two thread hand-offs fewer per decision, which is most of a lone decision's time on a
 * machine where waking a thread costs tens of microseconds (docs/benchmarks.md, "Rate limits").
 * A decision that finds the lane taken goes through Lettuce as before (alone or in a shared call,
 * {@link ScriptBatches}), so under load the lane is one more way to Redis, never a queue.
 *
 * <p>Failures are the store's usual ones: an I/O error or a reply not in within the command timeout
 * fails the decision as a Lettuce call would ({@link RedisConnectionException},
 * {@link RedisCommandTimeoutException}), and the connection is closed, because a late reply would
 * be read as the next call's; a background virtual thread opens a new one (backing off while Redis
 * is away), and meanwhile every decision goes through Lettuce, which has reconnection of its own.
 * A decision never waits for the lane's connection to be made.
 *
 * <p>Only for what a plain socket can reach as Lettuce would: {@code redis://} URIs with a host
 * (no TLS, Unix socket or Sentinel) and credentials known up front ({@link #of} says no otherwise).
 * Threadsafe.
 */
public final class DirectLane implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(DirectLane.class.getName());
    private static final byte[] EVALSHA = ascii("EVALSHA");
    private static final byte[] EVAL = ascii("EVAL");
    private static final byte[] SHA1 = ascii(DecideScript.sha1());
    /** The name the lane's connection has in {@code CLIENT LIST}. */
    static final String CLIENT_NAME = "retrysafe-rl-direct";
    private static final Duration FIRST_BACKOFF = Duration.ofMillis(50);
    private static final Duration MAX_BACKOFF = Duration.ofSeconds(2);

    private final String host;
    private final int port;
    private final long connectTimeoutNanos;
    private final List<byte[][]> handshake;
    private final ReentrantLock lock = new ReentrantLock();
    /** Written under {@link #lock}; null while (re)connecting or once closed. */
    private volatile @Nullable RespConnection connection;
    private volatile boolean closed;
    /** Guarded by {@link #lock}: the thread making a connection, while one is. */
    private @Nullable Thread connector;
    /** Guarded by {@link #lock}: how many connection attempts have ended, made or failed. */
    private long attempts;
    /** Signalled when an attempt ends. */
    private final Condition attemptEnded = lock.newCondition();

    private DirectLane(String host, int port, Duration connectTimeout, List<byte[][]> handshake) {
        this.host = host;
        this.port = port;
        this.connectTimeoutNanos = connectTimeout.toNanos();
        this.handshake = handshake;
    }

    /**
     * A lane to the Redis at {@code uri}, connecting in the background ({@link #awaitFirstAttempt}
     * waits for it); empty when {@code uri} is
     * one that needs more than a plain socket (TLS, a Unix socket, Sentinel, credentials resolved
     * later).
     */
    public static Optional<DirectLane> of(RedisURI uri, Duration connectTimeout) {
        if (uri.isSsl() || uri.getSocket() != null || !uri.getSentinels().isEmpty() || uri.getHost() == null) {
            return Optional.empty();
        }
        List<byte[][]> handshake = new ArrayList<>();
        RedisCredentialsProvider provider = uri.getCredentialsProvider();
        if (provider != null) {
            if (!(provider instanceof RedisCredentialsProvider.ImmediateRedisCredentialsProvider immediate)) {
                return Optional.empty();
            }
            RedisCredentials credentials = immediate.resolveCredentialsNow();
            if (credentials != null && credentials.hasPassword()) {
                byte[] password = utf8(credentials.getPassword());
                handshake.add(credentials.hasUsername()
                        ? new byte[][] {ascii("AUTH"), credentials.getUsername().getBytes(StandardCharsets.UTF_8),
                            password}
                        : new byte[][] {ascii("AUTH"), password});
            }
        }
        if (uri.getDatabase() != 0) {
            handshake.add(new byte[][] {ascii("SELECT"), ascii(Integer.toString(uri.getDatabase()))});
        }
        handshake.add(new byte[][] {ascii("CLIENT"), ascii("SETNAME"), ascii(CLIENT_NAME)});
        DirectLane lane = new DirectLane(uri.getHost(), uri.getPort(), connectTimeout, List.copyOf(handshake));
        lane.reconnect();
        return Optional.of(lane);
    }

    /**
     * Runs {@code call} on the lane if it is free and connected, waiting at most {@code timeout}
     * for the reply (and once more for {@code EVAL} when Redis lacks the script).
     *
     * @return the script's reply, or null when the lane was taken or not connected: then nothing
     *         was sent, and the caller goes the other way
     * @throws RedisException when the call failed, as a Lettuce call would have
     */
    public @Nullable List<Object> tryRun(ScriptCall call, Duration timeout) {
        if (!lock.tryLock()) {
            return null;
        }
        try {
            RespConnection current = connection;
            if (current == null) {
                return null;
            }
            long deadline = System.nanoTime() + timeout.toNanos();
            try {
                Object reply;
                try {
                    reply = current.script(EVALSHA, SHA1, call.keys(), call.arguments(), deadline);
                } catch (RedisNoScriptException e) {
                    // as DecideScript does: the text, which leaves the script in Redis's cache
                    reply = current.script(EVAL, DecideScript.sourceBytes(), call.keys(), call.arguments(),
                            System.nanoTime() + timeout.toNanos());
                }
                if (!(reply instanceof List<?> values)) {
                    throw new RedisException("decide.lua answered with something other than an array: " + reply);
                }
                @SuppressWarnings("unchecked")
                List<Object> result = (List<Object>) values;
                return result;
            } catch (SocketTimeoutException e) {
                drop(current);
                throw new RedisCommandTimeoutException("no answer from Redis within " + timeout);
            } catch (IOException e) {
                drop(current);
                throw new RedisConnectionException("the direct connection to Redis failed: " + e.getMessage(), e);
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Waits (at most the connect timeout) until the first attempt to connect has ended, so that a
     * store built while Redis is up uses the lane from its first decision on.
     */
    public void awaitFirstAttempt() {
        long remaining = connectTimeoutNanos;
        lock.lock();
        try {
            while (attempts == 0 && remaining > 0) {
                remaining = attemptEnded.awaitNanos(remaining);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            lock.unlock();
        }
    }

    /** Whether the lane has a connection now (for tests). */
    boolean connected() {
        lock.lock();
        try {
            return connection != null;
        } finally {
            lock.unlock();
        }
    }

    /** Closes {@code broken} (under {@link #lock}) and starts making a new connection. */
    private void drop(RespConnection broken) {
        broken.close();
        connection = null;
        reconnect();
    }

    /** Starts a background thread that connects, backing off while it fails, unless one runs or the lane is closed. */
    private void reconnect() {
        lock.lock();
        try {
            if (closed || connector != null) {
                return;
            }
            connector = Thread.ofVirtual().name(CLIENT_NAME + "-connect").unstarted(this::connectUntilDone);
            connector.start();
        } finally {
            lock.unlock();
        }
    }

    private void connectUntilDone() {
        long backoff = FIRST_BACKOFF.toNanos();
        boolean warned = false;
        while (true) {
            RespConnection made = null;
            try {
                made = RespConnection.open(new InetSocketAddress(host, port), connectTimeoutNanos, handshake);
            } catch (IOException | RedisException e) {
                if (!warned) {
                    // the message names host and port at most, never a credential
                    LOG.log(System.Logger.Level.DEBUG, "rate limits: no direct connection to Redis at {0}:{1} yet"
                            + " (decisions go through Lettuce meanwhile): {2}", host, String.valueOf(port), e.toString());
                    warned = true;
                }
            }
            lock.lock();
            try {
                attempts++;
                attemptEnded.signalAll();
                if (closed || made != null) {
                    connector = null;
                    if (closed && made != null) {
                        made.close();
                    } else {
                        connection = made;
                    }
                    return;
                }
            } finally {
                lock.unlock();
            }
            try {
                TimeUnit.NANOSECONDS.sleep(backoff);
            } catch (InterruptedException e) {
                return; // closed: the loop's next turn would see it too
            }
            backoff = Math.min(backoff * 2, MAX_BACKOFF.toNanos());
        }
    }

    /** Closes the connection; a call on it now fails as a broken connection would. */
    @Override
    public void close() {
        closed = true;
        // first without the lock, which a call in progress holds until its reply or timeout:
        // closing the socket under it ends it now
        RespConnection open = connection;
        if (open != null) {
            open.close();
        }
        Thread connecting;
        lock.lock();
        try {
            connecting = connector;
            open = connection;
            connection = null;
        } finally {
            lock.unlock();
        }
        if (connecting != null) {
            connecting.interrupt();
        }
        if (open != null) {
            open.close();
        }
    }

    private static byte[] ascii(String text) {
        return text.getBytes(StandardCharsets.US_ASCII);
    }

    private static byte[] utf8(char[] text) {
        ByteBuffer encoded = StandardCharsets.UTF_8.encode(CharBuffer.wrap(text));
        byte[] bytes = Arrays.copyOf(encoded.array(), encoded.limit());
        Arrays.fill(encoded.array(), (byte) 0);
        return bytes;
    }
}
