package dev.retrysafe.acceptance;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/** Running a load of tasks at the same moment, for the tests of concurrent retries. */
final class ParallelTasks {

    private ParallelTasks() {}

    /**
     * Runs every task on {@code threads} threads, all released by one start gate (so the first
     * tasks really overlap), and waits for all of them within {@code runDeadline}; fails if any
     * task fails, the deadline passes, or the workers do not stop within {@code deadline}.
     */
    static void runTogether(List<Callable<Void>> tasks, int threads, Duration deadline, Duration runDeadline)
            throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            CountDownLatch gate = new CountDownLatch(1);
            List<Future<Void>> futures = new ArrayList<>();
            for (Callable<Void> task : tasks) {
                futures.add(pool.submit(() -> {
                    if (!gate.await(deadline.toMillis(), TimeUnit.MILLISECONDS)) {
                        throw new AssertionError("the start gate never opened");
                    }
                    return task.call();
                }));
            }
            gate.countDown();
            long end = System.nanoTime() + runDeadline.toNanos();
            for (Future<Void> f : futures) {
                f.get(Math.max(0, end - System.nanoTime()), TimeUnit.NANOSECONDS);
            }
        } finally {
            pool.shutdownNow();
            assertThat(pool.awaitTermination(deadline.toMillis(), TimeUnit.MILLISECONDS))
                    .as("workers stopped")
                    .isTrue();
        }
    }
}
