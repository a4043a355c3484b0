package dev.retrysafe.jobs;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Holds a handler until the test opens the gate, and tells the test when a handler arrived.
 * Every wait has a deadline and fails rather than hangs.
 */
final class Gate {

    static final Duration DEADLINE = Duration.ofSeconds(10);

    private final CountDownLatch entered = new CountDownLatch(1);
    private final CountDownLatch open = new CountDownLatch(1);

    /** Called by the handler: signals its arrival, then waits (interruptibly) for the gate to open. */
    void pass() throws InterruptedException {
        entered.countDown();
        if (!open.await(DEADLINE.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new AssertionError("the test never opened the gate");
        }
    }

    /** Called by the test: waits until a handler is at the gate. */
    void awaitEntered() throws InterruptedException {
        if (!entered.await(DEADLINE.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new AssertionError("no handler reached the gate within " + DEADLINE);
        }
    }

    /** Lets every handler at the gate (and any later one) through. */
    void open() {
        open.countDown();
    }
}
