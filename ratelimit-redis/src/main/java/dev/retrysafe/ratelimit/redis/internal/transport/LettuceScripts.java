package dev.retrysafe.ratelimit.redis.internal.transport;

import dev.retrysafe.common.MonotonicClock;
import dev.retrysafe.ratelimit.redis.internal.DecideScript;
import dev.retrysafe.ratelimit.redis.internal.ScriptCall;
import io.lettuce.core.RedisCommandInterruptedException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import org.jspecify.annotations.Nullable;

/**
 * {@link DecideScript} through Lettuce: by its digest, and once more with its text when the node
 * answers {@code NOSCRIPT}; a caller waits for its command without a timer of its own (a
 * {@link Deadlines} ends what is late); and the failures a caller sees, as Lettuce's exceptions,
 * which the direct lane throws too. Threadsafe.
 */
final class LettuceScripts {

    private static final String SHA1 = DecideScript.sha1();
    private static final byte[] SOURCE_BYTES = DecideScript.sourceBytes();

    private LettuceScripts() {}

    /**
     * Runs the script on {@code redis} with {@code call}'s keys and arguments, waiting at most
     * {@code timeout} for each command: a command not answered by then is failed by
     * {@code deadlines} with a {@link RedisCommandTimeoutException} (its answer, if it comes, is
     * dropped), so the caller waits without a timer of its own. Any failure is thrown as the
     * {@link RedisException} it is.
     */
    static List<Object> run(
            RedisScriptingAsyncCommands<byte[], byte[]> redis, ScriptCall call, Duration timeout, Deadlines deadlines) {
        try {
            return await(
                    redis.evalsha(SHA1, ScriptOutputType.MULTI, call.keys(), call.arguments()), timeout, deadlines);
        } catch (RedisNoScriptException e) {
            return await(
                    redis.eval(SOURCE_BYTES, ScriptOutputType.MULTI, call.keys(), call.arguments()),
                    timeout,
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

    /**
     * Waits for {@code future} without a timer of its own: {@code deadlines} fails it as timed out
     * once {@code timeout} has passed (the concurrency store's link waits this way too).
     */
    static <T> T await(RedisFuture<T> future, Duration timeout, Deadlines deadlines) {
        // Lettuce's own command expiry fails a command the same way (completeExceptionally)
        deadlines.track(
                new Command(future.toCompletableFuture(), MonotonicClock.nanoTime() + timeout.toNanos(), timeout));
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
}
