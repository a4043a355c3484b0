package dev.retrysafe.ratelimit.redis.internal.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.retrysafe.common.MonotonicClock;
import dev.retrysafe.ratelimit.Algorithm;
import dev.retrysafe.ratelimit.redis.internal.ScriptCall;
import dev.retrysafe.ratelimit.redis.internal.ScriptCall.Mode;
import dev.retrysafe.ratelimit.redis.internal.ScriptReply;
import dev.retrysafe.ratelimit.redis.internal.transport.FakeScripting.Sent;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisNoScriptException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * How decisions are put together into calls, against a fake connection whose answers the test
 * gives: who goes alone, who waits, what a joint call carries and who gets which answer. (What the
 * script makes of a joint call is {@code DecideScriptTest}'s.)
 */
class ScriptBatchesTest {

    private static final Duration DEADLINE = Duration.ofSeconds(20);
    private static final Duration LONG = Duration.ofSeconds(30);

    /** What asking for the connection's commands throws, if anything. */
    private final AtomicReference<RuntimeException> noConnection = new AtomicReference<>();

    private final ExecutorService callers = Executors.newCachedThreadPool();
    private final FakeScripting fake = new FakeScripting();

    private final Deadlines deadlines = new Deadlines("script-batches-test");
    private final ScriptBatches batches = new ScriptBatches(
            () -> {
                RuntimeException failure = noConnection.get();
                if (failure != null) {
                    throw failure;
                }
                return fake.commands();
            },
            deadlines);

    @AfterEach
    void stopCallers() throws InterruptedException {
        callers.shutdownNow();
        assertThat(callers.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        deadlines.close();
    }

    @Test
    void aLoneCallGoesAtOnceAndAloneAndGetsItsAnswer() throws Exception {
        Future<ScriptBatches.Answer> a = decide("a");
        Sent call = next();
        assertThat(call.command()).isEqualTo("evalsha");
        assertThat(call.keys()).containsExactly("key-a");
        // Redis's time, no least key lifetime, one kind of charge, then the request: one charge of kind 1
        assertThat(call.arguments()).containsExactly("", "0", "1", "gcra", "1000", "5", "5", "1", "1");

        List<Object> reply = reply(7, 1);
        call.answer().complete(reply);
        assertThat(a.get(DEADLINE.toSeconds(), TimeUnit.SECONDS)).isEqualTo(new ScriptBatches.Answer(reply, 1));
    }

    @Test
    void idleOnlyWhileNoCallIsOnItsWay() throws Exception {
        assertThat(batches.idle()).isTrue();
        Future<ScriptBatches.Answer> a = decide("a");
        Sent call = next();
        assertThat(batches.idle()).isFalse();
        call.answer().complete(reply(1, 1));
        a.get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
        // the slot is given back before the answer is handed over
        assertThat(batches.idle()).isTrue();
    }

    @Test
    void theNextCallGoesBeforeTheAnsweredRequestsAreHandedTheirAnswers() throws Exception {
        TwoOnTheirWay busy = twoOnTheirWay();
        Future<ScriptBatches.Answer> c = queue(decide("c"), 1);

        // a's answer sends c's call; had a been handed its answer first, a would be back by now
        // (the wait is only as long as an answer handed over first would take to be seen)
        AtomicBoolean aBackBeforeTheNextCall = new AtomicBoolean(true);
        fake.beforeNextCall.set(() -> aBackBeforeTheNextCall.set(doneWithin(busy.a(), Duration.ofMillis(500))));
        busy.first().answer().complete(reply(1, 1));
        Sent next = next();
        assertThat(next.keys()).containsExactly("key-c");
        assertThat(aBackBeforeTheNextCall).isFalse();
        assertThat(busy.a().get(DEADLINE.toSeconds(), TimeUnit.SECONDS).at()).isEqualTo(1);

        busy.second().answer().complete(reply(2, 1));
        next.answer().complete(reply(3, 1));
        assertThat(busy.b().get(DEADLINE.toSeconds(), TimeUnit.SECONDS).at()).isEqualTo(1);
        assertThat(c.get(DEADLINE.toSeconds(), TimeUnit.SECONDS).at()).isEqualTo(1);
        assertThat(fake.anyReceived()).isFalse();
    }

    @Test
    void callsArrivingWhileTwoAreOnTheirWayGoTogetherInTheNextInOrder() throws Exception {
        TwoOnTheirWay busy = twoOnTheirWay();
        // two on their way: these wait
        Future<ScriptBatches.Answer> c = queue(decide("c"), 1);
        Future<ScriptBatches.Answer> d = queue(decideTwoCharges("d"), 2);
        Future<ScriptBatches.Answer> e = queue(callers.submit(() -> batches.run(call("e", 1, Mode.PEEK), LONG)), 3);
        Future<ScriptBatches.Answer> f = queue(callers.submit(() -> batches.run(call("f", 1, Mode.REFUND), LONG)), 4);
        assertThat(fake.anyReceived()).isFalse();

        // the first answer sends what waited, as one call
        busy.first().answer().complete(reply(1, 1));
        assertThat(busy.a().get(DEADLINE.toSeconds(), TimeUnit.SECONDS).at()).isEqualTo(1);
        Sent joint = next();
        assertThat(joint.keys()).containsExactly("key-c", "key-d", "key-d2", "key-e", "key-f");
        // each kind once (d's second charge costs 2: a kind of its own), then one argument per
        // request: c charges kind 1, d kinds 1 and 2, e peeks at kind 1, f refunds kind 1
        assertThat(joint.arguments())
                .containsExactly(
                        "", "0", "2", "gcra", "1000", "5", "5", "1", "gcra", "1000", "5", "5", "2", "1", "1,2", "?1",
                        "!1");

        // each finds its own figures: c from 1, d (two charges) from 4, e from 10, f from 13
        List<Object> reply = reply(3, 1, 2, 1, 1);
        joint.answer().complete(reply);
        assertThat(c.get(DEADLINE.toSeconds(), TimeUnit.SECONDS)).isEqualTo(new ScriptBatches.Answer(reply, 1));
        assertThat(d.get(DEADLINE.toSeconds(), TimeUnit.SECONDS)).isEqualTo(new ScriptBatches.Answer(reply, 4));
        assertThat(e.get(DEADLINE.toSeconds(), TimeUnit.SECONDS)).isEqualTo(new ScriptBatches.Answer(reply, 10));
        assertThat(f.get(DEADLINE.toSeconds(), TimeUnit.SECONDS)).isEqualTo(new ScriptBatches.Answer(reply, 13));
        assertThat(busy.b().isDone()).isFalse();
        busy.second().answer().complete(reply(2, 1));
        assertThat(busy.b().get(DEADLINE.toSeconds(), TimeUnit.SECONDS).at()).isEqualTo(1);
        assertThat(fake.anyReceived()).isFalse();
    }

    @Test
    void aScriptRedisDoesNotHaveIsSentAgainAsTextWithTheSameKeysAndArguments() throws Exception {
        Future<ScriptBatches.Answer> a = decide("a");
        Sent bySha = next();
        bySha.answer().completeExceptionally(new RedisNoScriptException("NOSCRIPT No matching script"));
        Sent byText = next();
        assertThat(byText.command()).isEqualTo("eval");
        assertThat(byText.keys()).isEqualTo(bySha.keys());
        assertThat(byText.arguments()).isEqualTo(bySha.arguments());
        List<Object> reply = reply(5, 1);
        byText.answer().complete(reply);
        assertThat(a.get(DEADLINE.toSeconds(), TimeUnit.SECONDS).reply()).isEqualTo(reply);
    }

    @Test
    void aFailedCallFailsEveryRequestInItAndTheNextCallStillGoes() throws Exception {
        TwoOnTheirWay busy = twoOnTheirWay();
        Future<ScriptBatches.Answer> c = queue(decide("c"), 1);

        busy.first().answer().completeExceptionally(new RedisConnectionException("connection reset"));
        assertThatThrownBy(() -> busy.a().get(DEADLINE.toSeconds(), TimeUnit.SECONDS))
                .hasCauseInstanceOf(RedisConnectionException.class);
        Sent third = next();
        assertThat(third.keys()).containsExactly("key-c");
        third.answer().complete(reply(1, 1));
        busy.second().answer().complete(reply(1, 1));
        assertThat(busy.b().get(DEADLINE.toSeconds(), TimeUnit.SECONDS).at()).isEqualTo(1);
        assertThat(c.get(DEADLINE.toSeconds(), TimeUnit.SECONDS).at()).isEqualTo(1);
    }

    @Test
    void aRequestWhoseCallerGaveUpBeforeItWentIsNeverSent() throws Exception {
        TwoOnTheirWay busy = twoOnTheirWay();
        // two on their way; c waits, and gives up after 50 ms
        Future<ScriptBatches.Answer> c = callers.submit(() -> batches.run(call("c", 1), Duration.ofMillis(50)));
        assertThatThrownBy(() -> c.get(DEADLINE.toSeconds(), TimeUnit.SECONDS))
                .hasCauseInstanceOf(RedisCommandTimeoutException.class);
        Future<ScriptBatches.Answer> d = queue(decide("d"), 1);

        busy.first().answer().complete(reply(1, 1));
        Sent next = next();
        assertThat(next.keys()).containsExactly("key-d");
        next.answer().complete(reply(1, 1));
        assertThat(d.get(DEADLINE.toSeconds(), TimeUnit.SECONDS).at()).isEqualTo(1);
    }

    @Test
    void aRequestSentButNotAnsweredFailsAtItsDeadlineAndNotBefore() throws Exception {
        Duration timeout = Duration.ofMillis(200);
        long start = MonotonicClock.nanoTime();
        Future<ScriptBatches.Answer> a = callers.submit(() -> batches.run(call("a", 1), timeout));
        Sent first = next(); // on its way; never answered

        assertThatThrownBy(() -> a.get(DEADLINE.toSeconds(), TimeUnit.SECONDS))
                .hasCauseInstanceOf(RedisCommandTimeoutException.class)
                .hasMessageContaining("within " + timeout);
        assertThat(MonotonicClock.nanoTime() - start).isGreaterThanOrEqualTo(timeout.toNanos());
        assertThat(first.answer()).isNotDone();
        // a late answer is nobody's, and breaks nothing
        first.answer().complete(reply(1, 1));
        await(() -> batches.tracked() == 0);
    }

    @Test
    void anInterruptedCallerStopsWaitingAndItsRequestNeitherGoesNorIsWatched() throws Exception {
        TwoOnTheirWay busy = twoOnTheirWay();
        Future<ScriptBatches.Answer> c = queue(decide("c"), 1);
        c.cancel(true);
        await(() -> batches.queued() == 0 && batches.tracked() == 2); // a and b, still on their way

        busy.first().answer().complete(reply(1, 1));
        Future<ScriptBatches.Answer> d = decide("d");
        Sent next = next();
        assertThat(next.keys()).containsExactly("key-d");
        next.answer().complete(reply(1, 1));
        busy.second().answer().complete(reply(1, 1));
        assertThat(d.get(DEADLINE.toSeconds(), TimeUnit.SECONDS).at()).isEqualTo(1);
        await(() -> batches.tracked() == 0);
    }

    @Test
    void callsThatFailAtOnceEvenWithAnErrorGiveTheirSlotsBack() throws Exception {
        // three calls whose sending throws (more than the two slots): each request fails as a
        // Redis failure, and none keeps a slot, or the fourth would wait for ever
        for (int i = 0; i < ScriptBatches.MAX_IN_FLIGHT + 1; i++) {
            fake.throwNext.set(new StackOverflowError("thrown by the fake connection"));
            Future<ScriptBatches.Answer> failing = decide("f" + i);
            assertThatThrownBy(() -> failing.get(DEADLINE.toSeconds(), TimeUnit.SECONDS))
                    .hasCauseInstanceOf(RedisException.class)
                    .hasRootCauseInstanceOf(StackOverflowError.class);
        }
        Future<ScriptBatches.Answer> a = decide("a");
        Sent call = next();
        call.answer().complete(reply(1, 1));
        assertThat(a.get(DEADLINE.toSeconds(), TimeUnit.SECONDS).at()).isEqualTo(1);
    }

    @Test
    void withoutAConnectionEveryQueuedRequestFailsAndTheNextOneGoesOnceItIsBack() throws Exception {
        TwoOnTheirWay busy = twoOnTheirWay();
        List<Future<ScriptBatches.Answer>> queued = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            queued.add(decide("q" + i));
        }
        await(() -> batches.queued() == 200);
        noConnection.set(new RedisConnectionException("not connected"));
        // the answer sends the queue's calls, which all fail at once, one after the other on this
        // thread (not each a level deeper): 200 requests, 4 calls
        busy.first().answer().complete(reply(1, 1));
        for (Future<ScriptBatches.Answer> q : queued) {
            assertThatThrownBy(() -> q.get(DEADLINE.toSeconds(), TimeUnit.SECONDS))
                    .hasCauseInstanceOf(RedisConnectionException.class);
        }
        assertThat(busy.a().get(DEADLINE.toSeconds(), TimeUnit.SECONDS).at()).isEqualTo(1);
        assertThat(busy.b().isDone()).isFalse();
        noConnection.set(null);
        Future<ScriptBatches.Answer> c = decide("c");
        Sent again = next();
        assertThat(again.keys()).containsExactly("key-c");
        again.answer().complete(reply(1, 1));
        assertThat(c.get(DEADLINE.toSeconds(), TimeUnit.SECONDS).at()).isEqualTo(1);
    }

    @Test
    void aClosedStoreIsSaidAsSuch() {
        noConnection.set(new IllegalStateException("the Redis rate-limit store is closed"));
        assertThatThrownBy(() -> batches.run(call("a", 1), LONG)).isInstanceOf(IllegalStateException.class);
    }

    // --- helpers -------------------------------------------------------------------------------

    /** Requests a and b, each sent alone: both slots taken. */
    private record TwoOnTheirWay(
            Future<ScriptBatches.Answer> a, Sent first, Future<ScriptBatches.Answer> b, Sent second) {}

    private TwoOnTheirWay twoOnTheirWay() throws InterruptedException {
        Future<ScriptBatches.Answer> a = decide("a");
        Sent first = next();
        Future<ScriptBatches.Answer> b = decide("b");
        return new TwoOnTheirWay(a, first, b, next());
    }

    /** Decides {@code request} (from another thread) and waits until it is the {@code position}th queued. */
    private Future<ScriptBatches.Answer> queue(Future<ScriptBatches.Answer> request, int position) {
        await(() -> batches.queued() == position);
        return request;
    }

    private Future<ScriptBatches.Answer> decide(String name) {
        return callers.submit(() -> batches.run(call(name, 1), LONG));
    }

    private Future<ScriptBatches.Answer> decideTwoCharges(String name) {
        return callers.submit(() -> batches.run(call(name, 2), LONG));
    }

    /** A request charging {@code charges} charges: keys key-NAME, key-NAME2, ..., the i-th costing i. */
    private static ScriptCall call(String name, int charges) {
        return call(name, charges, Mode.CHARGE);
    }

    private static ScriptCall call(String name, int charges, Mode mode) {
        byte[][] keys = new byte[charges][];
        ScriptCall.Kind[] kinds = new ScriptCall.Kind[charges];
        for (int i = 0; i < charges; i++) {
            keys[i] = bytes("key-" + name + (i == 0 ? "" : Integer.toString(i + 1)));
            kinds[i] = new ScriptCall.Kind(Algorithm.GCRA, 1000, 5, 5, i + 1);
        }
        return new ScriptCall(keys, kinds, mode, bytes(""), bytes("0"));
    }

    /** A reply: the time, then for each request of {@code charges} charges its figures (all {@code 1}). */
    private static List<Object> reply(long now, int... charges) {
        List<Object> reply = new ArrayList<>();
        reply.add(now);
        for (int n : charges) {
            for (int i = 0; i < ScriptReply.size(n); i++) {
                reply.add(1L);
            }
        }
        return reply;
    }

    private Sent next() throws InterruptedException {
        return fake.next(DEADLINE);
    }

    /** Whether {@code request} ends within {@code wait}. */
    private static boolean doneWithin(Future<?> request, Duration wait) {
        try {
            request.get(wait.toNanos(), TimeUnit.NANOSECONDS);
            return true;
        } catch (TimeoutException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } catch (ExecutionException e) {
            return true;
        }
    }

    private static void await(BooleanSupplier condition) {
        Conditions.await(condition, DEADLINE);
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
