package dev.retrysafe.spring.app;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/** What the tests hold the controller with and count its commits by. */
public class Gates {

    /** afterCommit callbacks that ran. */
    public final AtomicInteger afterCommits = new AtomicInteger();

    private volatile CountDownLatch entered = new CountDownLatch(1);
    private volatile CountDownLatch release = new CountDownLatch(1);

    /** Makes the next "hold" request wait until {@link #release()}. */
    public void arm() {
        entered = new CountDownLatch(1);
        release = new CountDownLatch(1);
    }

    void hold() throws InterruptedException {
        entered.countDown();
        if (!release.await(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("never released");
        }
    }

    /** Waits until a "hold" request is inside the controller. */
    public void awaitEntered() throws InterruptedException {
        if (!entered.await(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("the request never entered the controller");
        }
    }

    /** Lets the held request finish. */
    public void release() {
        release.countDown();
    }
}
