package dev.retrysafe.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.retrysafe.common.MonotonicClock;
import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadFactory;

/** A virtual-thread factory that remembers its threads, so a test can check that all of them ended. */
final class RecordingThreads implements ThreadFactory {

    private final ThreadFactory virtual =
            Thread.ofVirtual().name("test-jobs-", 0).factory();
    private final Queue<Thread> made = new ConcurrentLinkedQueue<>();

    @Override
    public Thread newThread(Runnable task) {
        Thread thread = virtual.newThread(task);
        made.add(thread);
        return thread;
    }

    /** How many threads were made. */
    int made() {
        return made.size();
    }

    /** Fails unless every thread made has ended (waiting a bounded time for those about to). */
    void assertAllEnded() throws InterruptedException {
        long deadline = MonotonicClock.nanoTime() + Duration.ofSeconds(5).toNanos();
        for (Thread thread : made) {
            thread.join(Duration.ofNanos(Math.max(1, deadline - MonotonicClock.nanoTime())));
        }
        List<String> alive =
                made.stream().filter(Thread::isAlive).map(Thread::getName).toList();
        assertThat(alive).as("threads still alive").isEmpty();
    }
}
