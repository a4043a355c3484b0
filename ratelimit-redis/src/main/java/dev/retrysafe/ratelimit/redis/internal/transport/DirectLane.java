package dev.retrysafe.ratelimit.redis.internal.transport;

import dev.retrysafe.common.MonotonicClock;
import dev.retrysafe.ratelimit.redis.internal.DecideScript;
import dev.retrysafe.ratelimit.redis.internal.ScriptCall;
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
 * A second, plain connection to a standalone Redis on which a decision alone in its store goes
 * when it finds the connection free (and, through {@link LaneFirstScriptLink}, a concurrency
 * store's call alone in its store): the caller writes its script call and reads the reply on its
 * own thread, where a call through Lettuce hands the command to Lettuce's event loop and waits to
 * be woken with the answer. Two thread hand-offs fewer per decision, which is most of a lone decision's time on a
 * machine where waking a thread costs tens of microseconds (bench/ratelimit/HISTORY.md).
 * A decision that finds the lane taken, or other decisions under way, goes through Lettuce (alone
 * or in a shared call, {@link ScriptBatches}), so the lane is never a queue, and under load
 * decisions share calls instead of one going alone and polling a core away from the others.
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
final class DirectLane implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(DirectLane.class.getName());
    private static final byte[] EVALSHA = ascii("EVALSHA");
    private static final byte[] EVAL = ascii("EVAL");
    private static final byte[] SHA1 = ascii(DecideScript.sha1());
    /** The name the lane's connection has in {@code CLIENT LIST}. */
    static final String CLIENT_NAME = "retrysafe-rl-direct";

    private static final byte[][] PING = {ascii("PING")};
    private static final byte[][] SET_NAME = {ascii("CLIENT"), ascii("SETNAME"), ascii(CLIENT_NAME)};
    private static final Duration FIRST_BACKOFF = Duration.ofMillis(50);
    /** The longest wait between attempts while Redis cannot be reached. */
    private static final Duration MAX_BACKOFF = Duration.ofSeconds(2);
    /** The longest wait between attempts while Redis refuses the handshake (ACL, password). */
    private static final Duration MAX_BACKOFF_REFUSED = Duration.ofMinutes(1);
    /**
     * After this long unused, a connection is checked with {@code PING} before a script goes on it:
     * Redis may have closed it meanwhile (a restart, its {@code timeout} setting), which the lane,
     * unlike Lettuce, only learns by using it, and a decision must not fail for that.
     */
    static final Duration DEFAULT_CHECK_AFTER = Duration.ofSeconds(1);

    private final String host;
    private final int port;
    private final long connectTimeoutNanos;
    private final List<byte[][]> handshake;
    private final long checkAfterNanos;
    /** How long a reply is polled for before a blocking read (see {@link SpinWait}). */
    private final Duration spinLimit;
    /** Ends a blocking read at its command's deadline, so that the read needs no timer of its own. */
    private final Deadlines deadlines;
    /** When the lane was made: the first connection's wait is counted from here. */
    private final long createdNanos = MonotonicClock.nanoTime();
    /** Guarded by {@link #lock}: when the connection was last used (or made). */
    private long lastUsedNanos;

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

    private DirectLane(
            String host,
            int port,
            Duration connectTimeout,
            List<byte[][]> handshake,
            Duration checkAfter,
            Duration spinLimit,
            Deadlines deadlines) {
        this.host = host;
        this.port = port;
        this.connectTimeoutNanos = connectTimeout.toNanos();
        this.handshake = handshake;
        this.checkAfterNanos = checkAfter.toNanos();
        this.spinLimit = spinLimit;
        this.deadlines = deadlines;
    }

    /**
     * A lane to the Redis at {@code uri}, connecting in the background ({@link #awaitFirstAttempt}
     * waits for it); empty when {@code uri} is
     * one that needs more than a plain socket (TLS, a Unix socket, Sentinel, credentials resolved
     * later). A reply is polled for at most {@code spinLimit} before a blocking read
     * ({@link SpinWait}; zero: never), and {@code deadlines}, which its owner closes after the lane,
     * ends a read whose reply is late.
     */
    public static Optional<DirectLane> of(
            RedisURI uri, Duration connectTimeout, Duration spinLimit, Deadlines deadlines) {
        return of(uri, connectTimeout, DEFAULT_CHECK_AFTER, spinLimit, deadlines);
    }

    /**
     * As {@link #of(RedisURI, Duration, Duration, Deadlines)}, checking a connection unused for
     * {@code checkAfter} (tests: zero).
     */
    static Optional<DirectLane> of(
            RedisURI uri, Duration connectTimeout, Duration checkAfter, Duration spinLimit, Deadlines deadlines) {
        if (uri.isSsl()
                || uri.getSocket() != null
                || !uri.getSentinels().isEmpty()
                || uri.getHost() == null
                || uri.getPort() < 1
                || uri.getPort() > 65535) {
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
                handshake.add(
                        credentials.hasUsername()
                                ? new byte[][] {
                                    ascii("AUTH"), credentials.getUsername().getBytes(StandardCharsets.UTF_8), password
                                }
                                : new byte[][] {ascii("AUTH"), password});
            }
        }
        if (uri.getDatabase() != 0) {
            handshake.add(new byte[][] {ascii("SELECT"), ascii(Integer.toString(uri.getDatabase()))});
        }
        DirectLane lane = new DirectLane(
                uri.getHost(), uri.getPort(), connectTimeout, List.copyOf(handshake), checkAfter, spinLimit, deadlines);
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
            return runLocked(SHA1, DecideScript.sourceBytes(), call.keys(), call.arguments(), timeout);
        } finally {
            lock.unlock();
        }
    }

    /**
     * As {@link #tryRun(ScriptCall, Duration)}, for another script whose reply is an array (the
     * concurrency store's): {@code sha1} is its digest in ASCII hex, {@code source} its text.
     */
    public @Nullable List<Object> tryRun(
            byte[] sha1, byte[] source, byte[][] keys, byte[][] arguments, Duration timeout) {
        if (!lock.tryLock()) {
            return null;
        }
        try {
            return runLocked(sha1, source, keys, arguments, timeout);
        } finally {
            lock.unlock();
        }
    }

    /** The body of {@code tryRun}, under {@link #lock}. */
    private @Nullable List<Object> runLocked(
            byte[] sha1, byte[] source, byte[][] keys, byte[][] arguments, Duration timeout) {
        RespConnection current = connection;
        if (current == null) {
            return null;
        }
        long now = MonotonicClock.nanoTime();
        long deadline = now + timeout.toNanos();
        if (now - lastUsedNanos >= checkAfterNanos && !stillOpen(current, deadline)) {
            return null; // nothing was sent: the call goes through Lettuce
        }
        lastUsedNanos = now;
        try {
            Object reply;
            try {
                reply = current.script(EVALSHA, sha1, keys, arguments, deadline);
            } catch (RedisNoScriptException e) {
                // as DecideScript does: the text, which leaves the script in Redis's cache
                reply = current.script(EVAL, source, keys, arguments, deadline);
            }
            if (!(reply instanceof List<?> values)) {
                throw new RedisException("the script answered with something other than an array: " + reply);
            }
            @SuppressWarnings("unchecked")
            List<Object> result = (List<Object>) values;
            return result;
        } catch (SocketTimeoutException e) {
            drop(current);
            throw LettuceScripts.timedOut(timeout);
        } catch (IOException e) {
            drop(current);
            throw new RedisConnectionException("the direct connection to Redis failed: " + e.getMessage(), e);
        }
    }

    /**
     * Whether {@code current}, unused for a while, still answers {@code PING}; if not, it is closed
     * and a new one is being made. A {@code PING} that times out fails the decision as a script
     * would have (Redis does not answer); any other failure means the connection is stale, and the
     * decision, of which nothing was sent, can go the other way. Called under {@link #lock}.
     */
    private boolean stillOpen(RespConnection current, long deadline) {
        try {
            current.command(PING, deadline);
            return true;
        } catch (SocketTimeoutException e) {
            drop(current);
            throw new RedisCommandTimeoutException("no answer from Redis in time");
        } catch (IOException | RedisException e) {
            drop(current);
            return false;
        }
    }

    /**
     * Waits until the first attempt to connect has ended, at most the connect timeout after the
     * lane was made, so that a store built while Redis is up uses the lane from its first decision
     * on.
     */
    public void awaitFirstAttempt() {
        long remaining = createdNanos + connectTimeoutNanos - MonotonicClock.nanoTime();
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
        boolean told = false;
        while (true) {
            RespConnection made = null;
            long maxBackoff = MAX_BACKOFF.toNanos();
            try {
                made = open();
            } catch (RedisException e) {
                // Redis answered the handshake with an error (a password, an ACL): it may be
                // fixed, but not in seconds. The message is Redis's, never a credential.
                maxBackoff = MAX_BACKOFF_REFUSED.toNanos();
                if (!told) {
                    LOG.log(
                            System.Logger.Level.WARNING,
                            "rate limits: Redis at {0}:{1} refused the direct"
                                    + " connection's handshake; decisions go through Lettuce: {2}",
                            host,
                            String.valueOf(port),
                            e.getMessage());
                    told = true;
                }
            } catch (IOException | RuntimeException e) {
                if (!told) {
                    LOG.log(
                            System.Logger.Level.DEBUG,
                            "rate limits: no direct connection to Redis at {0}:{1} yet"
                                    + " (decisions go through Lettuce meanwhile): {2}",
                            host,
                            String.valueOf(port),
                            e.toString());
                    told = true;
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
                        lastUsedNanos = MonotonicClock.nanoTime();
                    }
                    return;
                }
            } finally {
                lock.unlock();
            }
            try {
                TimeUnit.NANOSECONDS.sleep(backoff);
            } catch (InterruptedException e) {
                lock.lock();
                try {
                    connector = null; // closed: nothing is to be made any more
                } finally {
                    lock.unlock();
                }
                return;
            }
            backoff = Math.min(backoff * 2, maxBackoff);
        }
    }

    /**
     * A connection through the handshake; {@code CLIENT SETNAME} is asked for but not required (an
     * ACL without {@code +client}, a proxy without the command).
     */
    private RespConnection open() throws IOException {
        long deadline = MonotonicClock.nanoTime() + connectTimeoutNanos;
        RespConnection made = RespConnection.open(
                new InetSocketAddress(host, port), connectTimeoutNanos, handshake, SpinWait.of(spinLimit), deadlines);
        try {
            made.command(SET_NAME, deadline);
        } catch (RedisException e) {
            // answered, so the connection is in step; it just has no name
        } catch (IOException | RuntimeException e) {
            made.close();
            throw e;
        }
        return made;
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
