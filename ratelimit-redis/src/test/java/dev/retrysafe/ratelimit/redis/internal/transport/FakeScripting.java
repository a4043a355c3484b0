package dev.retrysafe.ratelimit.redis.internal.transport;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.RedisFuture;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A fake Lettuce connection for the script's calls: every {@code evalsha} or {@code eval} it is
 * given waits, unanswered, until the test answers it ({@link #next}).
 */
final class FakeScripting {

    /** A call the fake connection received, and the answer the test gives it. */
    record Sent(String command, List<String> keys, List<String> arguments, FakeFuture answer) {}

    /** A future Lettuce's API can hand out. */
    static final class FakeFuture extends CompletableFuture<List<Object>> implements RedisFuture<List<Object>> {
        @Override
        public String getError() {
            return null;
        }

        @Override
        public boolean await(long timeout, TimeUnit unit) {
            throw new UnsupportedOperationException();
        }
    }

    private final LinkedBlockingQueue<Sent> sent = new LinkedBlockingQueue<>();
    /** What the fake's next call throws instead of answering, if anything. */
    final AtomicReference<Throwable> throwNext = new AtomicReference<>();
    /** Run by the fake before it takes a call, if set (once). */
    final AtomicReference<Runnable> beforeNextCall = new AtomicReference<>();

    @SuppressWarnings("unchecked")
    private final RedisScriptingAsyncCommands<byte[], byte[]> commands =
            (RedisScriptingAsyncCommands<byte[], byte[]>) Proxy.newProxyInstance(
                    getClass().getClassLoader(),
                    new Class<?>[] {RedisScriptingAsyncCommands.class},
                    (proxy, method, args) -> {
                        Runnable before = beforeNextCall.getAndSet(null);
                        if (before != null) {
                            before.run();
                        }
                        Throwable thrown = throwNext.getAndSet(null);
                        if (thrown != null) {
                            throw thrown;
                        }
                        // evalsha(String sha, type, byte[][] keys, byte[]... args); eval(byte[] script, ...)
                        FakeFuture answer = new FakeFuture();
                        sent.add(
                                new Sent(method.getName(), text((byte[][]) args[2]), text((byte[][]) args[3]), answer));
                        return answer;
                    });

    /** The connection's commands. */
    RedisScriptingAsyncCommands<byte[], byte[]> commands() {
        return commands;
    }

    /** The next call received, waiting for it at most {@code within}. */
    Sent next(Duration within) throws InterruptedException {
        Sent call = sent.poll(within.toNanos(), TimeUnit.NANOSECONDS);
        assertThat(call).as("a call within %s", within).isNotNull();
        return call;
    }

    /** Whether a call was received and not yet taken by {@link #next}. */
    boolean anyReceived() {
        return !sent.isEmpty();
    }

    private static List<String> text(byte[][] values) {
        return Arrays.stream(values)
                .map(v -> new String(v, StandardCharsets.UTF_8))
                .toList();
    }
}
