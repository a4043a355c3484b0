package dev.retrysafe.ratelimit.redis.internal.transport;

import dev.retrysafe.common.MonotonicClock;
import dev.retrysafe.ratelimit.redis.internal.DecideScript;
import dev.retrysafe.ratelimit.redis.internal.ScriptCall;
import dev.retrysafe.ratelimit.redis.internal.ScriptReply;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import java.time.Duration;
import java.util.AbstractList;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.RandomAccess;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Decisions of concurrent requests sent to a standalone Redis as one {@code decide.lua} call.
 * A caller queues its request's call and, unless {@value #MAX_IN_FLIGHT} calls are on their way
 * already, sends whatever is queued as one call; otherwise the answer of a call on its way sends
 * the next one. So a lone caller's request goes at once, alone, and under load the requests that
 * arrive during a round trip go together in the next: one command, one write and one reply for
 * many decisions, where each would otherwise cost Lettuce and Redis a command of its own. The
 * script decides the requests of a call one after the other, each seeing the writes of those before
 * it, exactly as if they had come one by one in that order, at one Redis time.
 *
 * <p>A caller waits for its answer without a timeout of its own: one thread ({@link Deadlines})
 * fails the requests whose time is up, which spares a caller on a virtual thread a timer task per
 * decision.
 *
 * <p>Only for a standalone Redis: a Cluster refuses a call whose keys are in several slots. Only
 * with Redis's clock: the call carries one time for all its requests. Threadsafe.
 */
final class ScriptBatches {

    /** Calls on their way at once: two, so that Redis runs one while the JVM reads the other. */
    static final int MAX_IN_FLIGHT = 2;
    /** Requests in one call at most (their charges: one or a few each). */
    static final int MAX_REQUESTS = ScriptCall.MAX_REQUESTS;

    /** A request's call, waiting for its answer: where its figures start in the reply of the call it went in. */
    private static final class Waiter extends CompletableFuture<List<Object>> implements Deadlines.Expiring {
        final ScriptCall call;
        /** Set once, by whoever takes it first: the sender (it goes) or its time running out (it stays). */
        final AtomicBoolean taken = new AtomicBoolean();

        volatile int at;
        private final long deadline;
        private final Duration timeout;

        Waiter(ScriptCall call, Duration timeout) {
            this.call = call;
            this.timeout = timeout;
            this.deadline = MonotonicClock.nanoTime() + timeout.toNanos();
        }

        @Override
        public long deadline() {
            return deadline;
        }

        /** Its caller gave up (interrupted): still queued, it never goes. */
        @Override
        public boolean cancel(boolean mayInterruptIfRunning) {
            taken.set(true);
            return super.cancel(mayInterruptIfRunning);
        }

        /** Still queued: it never goes; already sent: its answer, whenever it comes, is nobody's. */
        @Override
        public void expire() {
            taken.set(true);
            completeExceptionally(LettuceScripts.timedOut(timeout));
        }
    }

    /**
     * A request's answer: its part of the reply of the call it went in, read in place. As a list it
     * is the reply of a call of this request alone (Redis's time, then its figures from
     * {@link ScriptReply#FIRST} on), so that decisions read every answer alike, and a request
     * answered in a joint call costs no copy of its figures.
     */
    static final class Answer extends AbstractList<Object> implements RandomAccess {
        private final List<Object> reply;
        private final int at;

        /** The request whose figures start at {@code at} in {@code reply}. */
        Answer(List<Object> reply, int at) {
            this.reply = reply;
            this.at = at;
        }

        /** The reply of the whole call. */
        List<Object> reply() {
            return reply;
        }

        /** Where this request's figures start in {@link #reply()}. */
        int at() {
            return at;
        }

        @Override
        public Object get(int index) {
            // the time at 0 is every request's; figures shift by where this request's start
            return index == 0 ? reply.get(0) : reply.get(Objects.checkIndex(index, size()) - ScriptReply.FIRST + at);
        }

        @Override
        public int size() {
            // a reply too short for its requests reads as too short for this one
            return Math.max(0, reply.size() - at + ScriptReply.FIRST);
        }
    }

    private final Supplier<RedisScriptingAsyncCommands<byte[], byte[]>> commands;
    private final ConcurrentLinkedQueue<Waiter> queue = new ConcurrentLinkedQueue<>();
    private final AtomicInteger inFlight = new AtomicInteger();
    private final Deadlines deadlines;

    /**
     * Batches over {@code commands}, which gives the connection's commands (failing with a
     * {@link RedisException} when there is no connection); once connected it must not block, as
     * the answer of one call, on Lettuce's event loop, sends the next. {@code deadlines} fails the
     * requests whose time is up; its owner closes it.
     */
    ScriptBatches(Supplier<RedisScriptingAsyncCommands<byte[], byte[]>> commands, Deadlines deadlines) {
        this.commands = commands;
        this.deadlines = deadlines;
    }

    /**
     * Decides {@code call} (one request, with Redis's clock) in the next call that goes, waiting at
     * most {@code timeout} from now for its answer: this request's part of the call's reply. Fails
     * as a call of its own would: with the {@link RedisException} of its call, or a
     * {@link RedisCommandTimeoutException}.
     */
    public Answer run(ScriptCall call, Duration timeout) {
        Waiter waiter = new Waiter(call, timeout);
        deadlines.track(waiter);
        queue.add(waiter);
        sendWhileRoom();
        // failed by the deadlines' thread when the time is up
        List<Object> reply = LettuceScripts.awaitUntimed(waiter);
        return new Answer(reply, waiter.at);
    }

    /**
     * Whether no call is on its way and nothing waits to go: a decision now would be alone. Under
     * load this is rarely so, and a decision is cheaper in a shared call than on a lane of its own.
     */
    public boolean idle() {
        return inFlight.get() == 0 && queue.isEmpty();
    }

    /** Requests waiting to go (for tests). */
    int queued() {
        return (int) queue.stream().filter(w -> !w.taken.get()).count();
    }

    /** Requests whose deadlines are still watched (for tests). */
    int tracked() {
        return deadlines.tracked();
    }

    /** Sends what is queued, a call at a time, while fewer than {@value #MAX_IN_FLIGHT} are on their way. */
    private void sendWhileRoom() {
        while (!queue.isEmpty()) {
            int sent = inFlight.get();
            if (sent >= MAX_IN_FLIGHT) {
                return; // the answer of one on its way sends the rest
            }
            if (!inFlight.compareAndSet(sent, sent + 1)) {
                continue;
            }
            List<Waiter> batch = take();
            if (batch.isEmpty()) {
                inFlight.decrementAndGet(); // others took them (or gave up); the loop looks again
                continue;
            }
            send(batch);
        }
    }

    private List<Waiter> take() {
        List<Waiter> batch = new ArrayList<>(Math.min(MAX_REQUESTS, 8));
        Waiter next;
        while (batch.size() < MAX_REQUESTS && (next = queue.poll()) != null) {
            if (next.taken.compareAndSet(false, true)) {
                batch.add(next);
            }
        }
        return batch;
    }

    /** One call on its way: its requests, answered once, whatever happens. */
    private static final class Call {
        final List<Waiter> requests;
        final Thread sender = Thread.currentThread();
        /** While {@link #send} runs on {@link #sender}. */
        volatile boolean sending = true;

        final AtomicBoolean answered = new AtomicBoolean();

        Call(List<Waiter> requests) {
            this.requests = requests;
        }
    }

    /**
     * Sends one call. Never throws, and whatever fails (at once or later, even with an
     * {@link Error}) answers its requests and gives its slot back: a slot kept would stall every
     * decision after it.
     */
    private void send(List<Waiter> batch) {
        Call call = new Call(batch);
        try {
            List<ScriptCall> requests = new ArrayList<>(batch.size());
            int at = ScriptReply.FIRST;
            for (Waiter w : batch) {
                requests.add(w.call);
                w.at = at;
                at += ScriptReply.size(w.call.keys().length);
            }
            byte[][] keys = ScriptCall.keysOf(requests);
            byte[][] arguments = ScriptCall.argumentsOf(requests);
            RedisScriptingAsyncCommands<byte[], byte[]> redis = commands.get();
            byte[][] callKeys = keys;
            byte[][] callArguments = arguments;
            redis.<List<Object>>evalsha(DecideScript.sha1(), ScriptOutputType.MULTI, callKeys, callArguments)
                    .whenComplete((reply, failure) -> {
                        try {
                            if (LettuceScripts.unwrap(failure) instanceof RedisNoScriptException) {
                                // not in this server's cache (yet): the text, which leaves it there
                                redis.<List<Object>>eval(
                                                DecideScript.sourceBytes(),
                                                ScriptOutputType.MULTI,
                                                callKeys,
                                                callArguments)
                                        .whenComplete((again, stillFailing) -> answer(call, again, stillFailing));
                            } else {
                                answer(call, reply, failure);
                            }
                        } catch (Throwable e) {
                            answer(call, null, e);
                        }
                    });
        } catch (Throwable e) {
            answer(call, null, e);
        } finally {
            call.sending = false;
        }
    }

    /**
     * Gives the call's slot back and sends what queued meanwhile, then hands each request of the
     * call its answer (the first time only). The next call goes first so that Redis has it while
     * this call's callers are being woken, which on a loaded machine takes the answering thread
     * a wake-up per request: woken first, they kept the next call waiting (bench/ratelimit/HISTORY.md,
     * "2026-12-06"). Nothing is sent when answered at once on the thread still sending the call,
     * whose {@link #sendWhileRoom} loop goes on by itself (a Redis that fails every call at once
     * must not make each call a level deeper on one stack).
     */
    private void answer(Call call, @Nullable List<Object> reply, @Nullable Throwable failure) {
        if (!call.answered.compareAndSet(false, true)) {
            return;
        }
        try {
            inFlight.decrementAndGet();
            if (!(call.sending && Thread.currentThread() == call.sender)) {
                sendWhileRoom();
            }
        } finally {
            for (Waiter w : call.requests) {
                if (failure == null) {
                    w.complete(reply);
                } else {
                    w.completeExceptionally(LettuceScripts.unwrap(failure));
                }
            }
        }
    }
}
