package dev.retrysafe.ratelimit.redis.internal;

import dev.retrysafe.common.MonotonicClock;
import io.lettuce.core.RedisCommandInterruptedException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import org.jspecify.annotations.Nullable;

/**
 * The decision script ({@code decide.lua}), run by its SHA-1 digest. The digest is computed here
 * rather than taken from {@code SCRIPT LOAD}, so no call waits for a load. When a node answers
 * {@code NOSCRIPT} (first use, a restart, {@code SCRIPT FLUSH}, a failover to a replica that never
 * saw it, a Cluster slot moved to a master that never ran it), the call is made once more with
 * {@code EVAL} and the script's text: that goes where the keys are (in a Cluster, to the master of
 * their slot, redirections followed), decides in the same round trip, and leaves the script in
 * that node's cache for the digest. {@code SCRIPT LOAD} would need a round trip of its own, and in
 * a Cluster it carries no key to route it to the node that lacks the script. Threadsafe.
 */
public final class DecideScript {

    private static final String SOURCE = readSource();
    private static final byte[] SOURCE_BYTES = SOURCE.getBytes(StandardCharsets.UTF_8);
    private static final String SHA1 = sha1(SOURCE_BYTES);

    private DecideScript() {}

    /** The script's text. */
    public static String source() {
        return SOURCE;
    }

    /** The script's text in UTF-8, as {@code EVAL} takes it. */
    static byte[] sourceBytes() {
        return SOURCE_BYTES;
    }

    /** The script's SHA-1 digest, as {@code EVALSHA} takes it. */
    public static String sha1() {
        return SHA1;
    }

    /**
     * Runs the script on {@code redis} with {@code call}'s keys and arguments, waiting at most
     * {@code timeout} for each command: a command not answered by then is failed by
     * {@code deadlines} with a {@link RedisCommandTimeoutException} (its answer, if it comes, is
     * dropped), so the caller waits without a timer of its own. Any failure is thrown as the
     * {@link RedisException} it is.
     */
    static List<Object> run(RedisScriptingAsyncCommands<byte[], byte[]> redis, ScriptCall call,
            Duration timeout, Deadlines deadlines) {
        try {
            return await(redis.evalsha(SHA1, ScriptOutputType.MULTI, call.keys(), call.arguments()), timeout, deadlines);
        } catch (RedisNoScriptException e) {
            return await(redis.eval(SOURCE_BYTES, ScriptOutputType.MULTI, call.keys(), call.arguments()), timeout,
                    deadlines);
        }
    }

    /** A command on its way, failed as timed out at its deadline unless answered by then. */
    private record Command(CompletableFuture<?> future, long deadline, Duration timeout) implements Deadlines.Expiring {
        @Override
        public boolean isDone() {
            return future.isDone();
        }

        @Override
        public void expire() {
            future.completeExceptionally(timedOut(timeout));
        }
    }

    private static <T> T await(RedisFuture<T> future, Duration timeout, Deadlines deadlines) {
        // Lettuce's own command expiry fails a command the same way (completeExceptionally)
        deadlines.track(new Command(future.toCompletableFuture(), MonotonicClock.nanoTime() + timeout.toNanos(), timeout));
        return awaitUntimed(future);
    }

    /**
     * Waits for {@code future} without a timeout (its deadline is kept by a {@link Deadlines}) and
     * throws its failure as a command's ({@link #asRedisException}); an interrupted caller cancels
     * it, which ends its tracking, and fails with {@link RedisCommandInterruptedException}.
     */
    static <T> T awaitUntimed(Future<T> future) {
        try {
            return future.get();
        } catch (ExecutionException e) {
            throw asRedisException(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            future.cancel(false); // done: nothing tracks it any longer
            throw new RedisCommandInterruptedException(e);
        }
    }

    /** The failure of a command or request not answered within {@code timeout}. */
    static RedisCommandTimeoutException timedOut(Duration timeout) {
        return new RedisCommandTimeoutException("no answer from Redis within " + timeout);
    }

    /** The failure itself, not the {@link CompletionException} that may wrap it. */
    static @Nullable Throwable unwrap(@Nullable Throwable failure) {
        return failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
    }

    /**
     * What a failed command throws: a Redis failure as is, the store closed as is
     * ({@link RedisConnector#commands()}'s {@link IllegalStateException}), anything else as a
     * Redis failure.
     */
    static RuntimeException asRedisException(Throwable cause) {
        Throwable failure = unwrap(cause);
        if (failure instanceof RedisException redis) {
            return redis;
        }
        if (failure instanceof IllegalStateException closed) {
            return closed;
        }
        return new RedisException(failure);
    }

    private static String readSource() {
        try (InputStream in = DecideScript.class.getResourceAsStream("decide.lua")) {
            if (in == null) {
                throw new IllegalStateException("decide.lua is missing from the retrysafe-ratelimit-redis jar");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read decide.lua", e);
        }
    }

    private static String sha1(byte[] text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1").digest(text));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-1", e);
        }
    }
}
