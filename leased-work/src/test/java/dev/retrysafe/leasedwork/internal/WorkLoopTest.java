package dev.retrysafe.leasedwork.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The engine's lifecycle over an in-memory queue: claims bounded by workers, wake-up, upkeep, close. */
class WorkLoopTest {

    private final List<Thread> made = new CopyOnWriteArrayList<>();
    private final ThreadFactory threads = task -> {
        Thread thread = Thread.ofVirtual().name("work-loop-test-", made.size()).unstarted(task);
        made.add(thread);
        return thread;
    };

    @AfterEach
    void everyThreadEnded() {
        await().atMost(Duration.ofSeconds(10)).until(() -> made.stream().noneMatch(Thread::isAlive));
    }

    /** Units are strings; a unit named "stuck" runs until interrupted. */
    private static class Queued implements LeasedWork<String> {
        final Queue<String> due = new ConcurrentLinkedQueue<>();
        final List<String> ran = new CopyOnWriteArrayList<>();
        final List<String> abandoned = new CopyOnWriteArrayList<>();
        final AtomicInteger mostAsked = new AtomicInteger();
        final List<Long> claimedAt = new CopyOnWriteArrayList<>();
        final CountDownLatch stuckStarted = new CountDownLatch(1);
        volatile boolean closed;

        @Override
        public Claims<String> claim(int room) {
            mostAsked.accumulateAndGet(room, Math::max);
            List<String> taken = new ArrayList<>();
            while (taken.size() < room && !due.isEmpty()) {
                taken.add(due.poll());
            }
            return new Claims<>(taken, !due.isEmpty());
        }

        @Override
        public void run(String claim) {
            if (claim.equals("stuck")) {
                stuckStarted.countDown();
                try {
                    new CountDownLatch(1).await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
            ran.add(claim);
        }

        @Override
        public void abandon(List<WorkLoop.Worker<String>> stillRunning) {
            stillRunning.forEach(w -> {
                abandoned.add(w.claim());
                w.interrupt();
            });
        }

        @Override
        public void closed() {
            closed = true;
        }
    }

    private WorkLoop<String> loop(
            Queued work,
            WorkLoop.Rhythm rhythm,
            int workers,
            Duration shutdownTimeout,
            List<LoopSettings.Upkeep> upkeep) {
        return new WorkLoop<>(
                new LoopSettings(
                        "test loop",
                        System.getLogger("test"),
                        workers,
                        workers,
                        rhythm,
                        Duration.ofMinutes(1),
                        shutdownTimeout,
                        threads,
                        threads,
                        upkeep),
                work);
    }

    @ParameterizedTest
    @EnumSource(WorkLoop.Rhythm.class)
    void runDueRunsOneClaimOfAtMostTheWorkersToItsEnd(WorkLoop.Rhythm rhythm) {
        Queued work = new Queued();
        work.due.addAll(List.of("a", "b", "c"));
        try (WorkLoop<String> loop = loop(work, rhythm, 2, Duration.ofSeconds(5), List.of())) {
            assertThat(loop.runDue()).isEqualTo(2);
            assertThat(work.ran).containsExactlyInAnyOrder("a", "b");
            assertThat(loop.inFlight()).isZero();
        }
        assertThat(work.closed).isTrue();
    }

    @ParameterizedTest
    @EnumSource(WorkLoop.Rhythm.class)
    void aStartedLoopClaimsWhatAWakeUpAnnounces(WorkLoop.Rhythm rhythm) {
        Queued work = new Queued();
        try (WorkLoop<String> loop = loop(work, rhythm, 3, Duration.ofSeconds(5), List.of())) {
            loop.start();
            for (int i = 0; i < 10; i++) {
                work.due.add("unit-" + i);
            }
            loop.wakeUp();
            await().atMost(Duration.ofSeconds(10)).until(() -> work.ran.size() == 10);
            assertThat(work.mostAsked.get()).isLessThanOrEqualTo(3);
        }
    }

    @Test
    void closeHandsWorkStillRunningAfterTheTimeoutToAbandonThenStopsUpkeep() throws InterruptedException {
        Queued work = new Queued();
        work.due.add("stuck");
        AtomicInteger beats = new AtomicInteger();
        WorkLoop<String> loop = loop(
                work,
                WorkLoop.Rhythm.ROUNDS,
                1,
                Duration.ofMillis(50),
                List.of(new LoopSettings.Upkeep("beat", Duration.ofMillis(10), true, beats::incrementAndGet)));
        loop.start();
        assertThat(work.stuckStarted.await(10, TimeUnit.SECONDS)).isTrue();
        await().atMost(Duration.ofSeconds(10)).until(() -> beats.get() > 1);
        loop.close();
        assertThat(work.abandoned).containsExactly("stuck");
        assertThat(loop.isClosing()).isTrue();
        assertThatThrownBy(loop::runDue).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(loop::start).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void sleepUnlessClosingEndsWhenCloseBegins() throws InterruptedException {
        Queued work = new Queued();
        WorkLoop<String> loop = loop(work, WorkLoop.Rhythm.BATCHES, 1, Duration.ofSeconds(1), List.of());
        CountDownLatch slept = new CountDownLatch(1);
        boolean[] whole = {true};
        Thread sleeper = threads.newThread(() -> {
            whole[0] = loop.sleepUnlessClosing(Duration.ofMinutes(1).toNanos());
            slept.countDown();
        });
        sleeper.start();
        loop.close();
        assertThat(slept.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(whole[0]).isFalse();
    }

    @Test
    void wakeUpsWithinTheClaimGapShareOneClaim() {
        Duration gap = Duration.ofMillis(300);
        Queued work = new Queued() {
            @Override
            public Claims<String> claim(int room) {
                claimedAt.add(System.nanoTime());
                return super.claim(room);
            }
        };
        try (WorkLoop<String> loop = new WorkLoop<>(
                new LoopSettings(
                        "test loop",
                        System.getLogger("test"),
                        100,
                        100,
                        WorkLoop.Rhythm.BATCHES,
                        Duration.ofMinutes(1),
                        Duration.ofSeconds(5),
                        threads,
                        threads,
                        List.of(),
                        gap),
                work)) {
            loop.start();
            await().atMost(Duration.ofSeconds(10)).until(() -> work.claimedAt.size() == 1);
            // a stream of commits, each waking the loop
            for (int i = 0; i < 20; i++) {
                work.due.add("unit-" + i);
                loop.wakeUp();
            }
            await().atMost(Duration.ofSeconds(10)).until(() -> work.ran.size() == 20);
            List<Long> at = List.copyOf(work.claimedAt);
            for (int i = 1; i < at.size(); i++) {
                assertThat(Duration.ofNanos(at.get(i) - at.get(i - 1)))
                        .as("time between claims %d and %d", i - 1, i)
                        .isGreaterThanOrEqualTo(gap);
            }
            assertThat(at).as("the wake-ups were served by one or two claims").hasSizeBetween(2, 3);
        }
    }

    @Test
    void aFullBatchIsFollowedAtOnceWhateverTheClaimGap() {
        Queued work = new Queued();
        for (int i = 0; i < 30; i++) {
            work.due.add("unit-" + i);
        }
        try (WorkLoop<String> loop = new WorkLoop<>(
                new LoopSettings(
                        "test loop",
                        System.getLogger("test"),
                        100,
                        10,
                        WorkLoop.Rhythm.BATCHES,
                        Duration.ofMinutes(1),
                        Duration.ofSeconds(5),
                        threads,
                        threads,
                        List.of(),
                        Duration.ofMinutes(1)),
                work)) {
            loop.start();
            // three full batches of 10, then a claim that finds nothing; a gap would hold the second for a minute
            await().atMost(Duration.ofSeconds(10)).until(() -> work.ran.size() == 30);
        }
    }
}
