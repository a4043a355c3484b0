package dev.retrysafe.acceptance;

import dev.retrysafe.server.Api;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * Steady traffic while a test breaks something: each client sends one request after another on
 * a thread of its own, all released by one start gate, until {@link #stop()}. Every answer is
 * kept with the phase of the test (a value the test moves forward) at the moment it was sent and
 * at the moment it came back, so the test can judge the answers given wholly within one phase. A
 * client that throws stops, and {@link #stop()} fails with what it threw. Threadsafe.
 *
 * @param <P> the test's phases
 */
final class RequestLoop<P> implements AutoCloseable {

    /** One answer of client {@code client} (its index), which took {@code took}. */
    record Outcome<P>(int client, P sentIn, P answeredIn, Duration took, Api.Answer answer) {

        /** Whether the request was sent and answered within {@code phase}. */
        boolean within(P phase) {
            return sentIn.equals(phase) && answeredIn.equals(phase);
        }
    }

    private final List<Thread> threads = new ArrayList<>();
    private final Queue<Outcome<P>> outcomes = new ConcurrentLinkedQueue<>();
    private final Queue<Throwable> failures = new ConcurrentLinkedQueue<>();
    private final Duration deadline;
    private volatile boolean running = true;

    private RequestLoop(Duration deadline) {
        this.deadline = deadline;
    }

    /**
     * Starts one thread per client and opens the gate once every thread waits at it.
     *
     * @param deadline the longest any wait of the loop may take: the gate, one request, the stop
     */
    static <P> RequestLoop<P> start(List<Supplier<Api.Answer>> clients, Supplier<P> phase, Duration deadline)
            throws InterruptedException {
        RequestLoop<P> loop = new RequestLoop<>(deadline);
        CountDownLatch ready = new CountDownLatch(clients.size());
        CountDownLatch gate = new CountDownLatch(1);
        for (int c = 0; c < clients.size(); c++) {
            int client = c;
            Supplier<Api.Answer> send = clients.get(c);
            Thread thread = new Thread(
                    () -> {
                        try {
                            ready.countDown();
                            if (!gate.await(deadline.toMillis(), TimeUnit.MILLISECONDS)) {
                                throw new AssertionError("the start gate never opened");
                            }
                            while (loop.running) {
                                P sentIn = phase.get();
                                long start = System.nanoTime();
                                Api.Answer answer = send.get();
                                Duration took = Duration.ofNanos(System.nanoTime() - start);
                                loop.outcomes.add(new Outcome<>(client, sentIn, phase.get(), took, answer));
                            }
                        } catch (Throwable e) {
                            loop.failures.add(e);
                        }
                    },
                    "request-loop-" + client);
            thread.setDaemon(true);
            loop.threads.add(thread);
            thread.start();
        }
        try {
            if (!ready.await(deadline.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new AssertionError("the clients of the request loop did not start within " + deadline);
            }
        } finally {
            gate.countDown();
        }
        return loop;
    }

    /** How many answers so far match {@code filter}. */
    long count(Predicate<Outcome<P>> filter) {
        return outcomes.stream().filter(filter).count();
    }

    /**
     * Stops every client, waits (bounded) for its last answer, and returns all answers.
     *
     * @throws AssertionError if a client failed or did not stop within the deadline
     */
    List<Outcome<P>> stop() throws InterruptedException {
        running = false;
        long end = System.nanoTime() + deadline.toNanos();
        for (Thread thread : threads) {
            thread.join(Duration.ofNanos(Math.max(1, end - System.nanoTime())));
        }
        List<String> alive =
                threads.stream().filter(Thread::isAlive).map(Thread::getName).toList();
        if (!alive.isEmpty()) {
            threads.forEach(Thread::interrupt);
            throw new AssertionError("request loop clients still running after " + deadline + ": " + alive);
        }
        if (!failures.isEmpty()) {
            AssertionError failed =
                    new AssertionError("a request loop client failed: " + failures.peek(), failures.peek());
            failures.stream().skip(1).forEach(failed::addSuppressed);
            throw failed;
        }
        return List.copyOf(outcomes);
    }

    /**
     * Stops the clients at once (interrupting requests under way) and waits, bounded, until they
     * are gone: cleanup after a failure, which {@link #stop()} would have reported.
     */
    @Override
    public void close() {
        running = false;
        threads.forEach(Thread::interrupt);
        long end = System.nanoTime() + deadline.toNanos();
        try {
            for (Thread thread : threads) {
                thread.join(Duration.ofNanos(Math.max(1, end - System.nanoTime())));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
