package dev.retrysafe.ratelimit.redis.internal.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.retrysafe.common.MonotonicClock;
import dev.retrysafe.ratelimit.Algorithm;
import dev.retrysafe.ratelimit.redis.internal.ScriptCall;
import dev.retrysafe.ratelimit.redis.internal.transport.FakeScripting.Sent;
import io.lettuce.core.RedisBusyException;
import io.lettuce.core.RedisCommandInterruptedException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisNoScriptException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A decision in a call of its own (a Cluster, a time source, batching off), against a fake
 * connection whose answers the test gives: how the caller waits for its command, without a timer
 * of its own, and what it throws.
 */
class DecideScriptRunTest {

    private static final Duration DEADLINE = Duration.ofSeconds(20);
    private static final Duration LONG = Duration.ofSeconds(30);
    private static final ScriptCall CALL = new ScriptCall(
            new byte[][] {bytes("key-a")},
            new ScriptCall.Kind[] {new ScriptCall.Kind(Algorithm.GCRA, 1000, 5, 5, 1)},
            ScriptCall.Mode.CHARGE,
            bytes(""),
            bytes("0"));
    private static final List<Object> REPLY = List.of(7L, 4L, 200L, 0L);

    private final FakeScripting fake = new FakeScripting();
    private final Deadlines deadlines = new Deadlines("decide-script-test");
    private final ExecutorService callers = Executors.newCachedThreadPool();

    @AfterEach
    void stop() throws InterruptedException {
        callers.shutdownNow();
        assertThat(callers.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        deadlines.close();
    }

    @Test
    void anAnsweredCommandGivesItsReplyAndIsNoLongerWatched() throws Exception {
        Future<List<Object>> a = run(LONG);
        Sent sent = fake.next(DEADLINE);
        assertThat(sent.command()).isEqualTo("evalsha");
        assertThat(sent.keys()).containsExactly("key-a");
        Conditions.await(() -> deadlines.tracked() == 1, DEADLINE); // tracked once sent

        sent.answer().complete(REPLY);
        assertThat(a.get(DEADLINE.toSeconds(), TimeUnit.SECONDS)).isEqualTo(REPLY);
        Conditions.await(() -> deadlines.tracked() == 0, DEADLINE);
    }

    @Test
    void aServerWithoutTheScriptGetsItsTextAndAnswersThat() throws Exception {
        Future<List<Object>> a = run(LONG);
        Sent bySha = fake.next(DEADLINE);
        bySha.answer().completeExceptionally(new RedisNoScriptException("NOSCRIPT No matching script"));
        Sent byText = fake.next(DEADLINE);
        assertThat(byText.command()).isEqualTo("eval");
        assertThat(byText.keys()).isEqualTo(bySha.keys());
        assertThat(byText.arguments()).isEqualTo(bySha.arguments());

        byText.answer().complete(REPLY);
        assertThat(a.get(DEADLINE.toSeconds(), TimeUnit.SECONDS)).isEqualTo(REPLY);
    }

    @Test
    void aCommandNeverAnsweredFailsAtItsDeadlineAndNotBefore() throws Exception {
        Duration timeout = Duration.ofMillis(200);
        long start = MonotonicClock.nanoTime();
        Future<List<Object>> a = run(timeout);
        Sent sent = fake.next(DEADLINE);

        assertThatThrownBy(() -> a.get(DEADLINE.toSeconds(), TimeUnit.SECONDS))
                .hasCauseInstanceOf(RedisCommandTimeoutException.class)
                .hasMessageContaining("within " + timeout);
        assertThat(MonotonicClock.nanoTime() - start).isGreaterThanOrEqualTo(timeout.toNanos());
        // failed, as Lettuce's own expiry fails a command: a late answer is dropped
        assertThat(sent.answer()).isCompletedExceptionally();
        assertThat(sent.answer().complete(REPLY)).isFalse();
        assertThat(deadlines.tracked()).isZero();
    }

    @Test
    void aRedisErrorIsThrownAsItIsAndAnyOtherFailureAsARedisFailure() throws Exception {
        Future<List<Object>> a = run(LONG);
        RedisBusyException busy = new RedisBusyException("BUSY Redis is busy running a script");
        fake.next(DEADLINE).answer().completeExceptionally(busy);
        assertThatThrownBy(() -> a.get(DEADLINE.toSeconds(), TimeUnit.SECONDS))
                .cause()
                .isSameAs(busy);

        Future<List<Object>> b = run(LONG);
        IllegalArgumentException odd = new IllegalArgumentException("not a Redis failure");
        fake.next(DEADLINE).answer().completeExceptionally(odd);
        assertThatThrownBy(() -> b.get(DEADLINE.toSeconds(), TimeUnit.SECONDS))
                .cause()
                .isExactlyInstanceOf(RedisException.class)
                .cause()
                .isSameAs(odd);
    }

    @Test
    void anInterruptedCallerStopsWaitingAndItsCommandIsNoLongerWatched() throws Exception {
        AtomicReference<Thread> caller = new AtomicReference<>();
        AtomicReference<Boolean> stillInterrupted = new AtomicReference<>();
        Future<List<Object>> a = callers.submit(() -> {
            caller.set(Thread.currentThread());
            try {
                return LettuceScripts.run(fake.commands(), CALL, LONG, deadlines);
            } finally {
                stillInterrupted.set(Thread.currentThread().isInterrupted());
            }
        });
        Sent sent = fake.next(DEADLINE);
        caller.get().interrupt();

        assertThatThrownBy(() -> a.get(DEADLINE.toSeconds(), TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .cause()
                .isInstanceOf(RedisCommandInterruptedException.class);
        assertThat(stillInterrupted.get()).isTrue();
        assertThat(sent.answer()).isCancelled();
        Conditions.await(() -> deadlines.tracked() == 0, DEADLINE);
    }

    private Future<List<Object>> run(Duration timeout) {
        return callers.submit(() -> LettuceScripts.run(fake.commands(), CALL, timeout, deadlines));
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
