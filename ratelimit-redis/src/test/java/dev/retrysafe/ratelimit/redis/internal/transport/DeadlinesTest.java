package dev.retrysafe.ratelimit.redis.internal.transport;

import static org.assertj.core.api.Assertions.assertThat;

import dev.retrysafe.common.MonotonicClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The thread that keeps deadlines for callers waiting without a timeout: it ends what is late,
 * never before its deadline, whatever order deadlines are tracked in and however many threads
 * track at once, drops what is done, and ends after closing once nothing is outstanding.
 */
class DeadlinesTest {

    /** How long a test waits for something that should happen (far more than it takes). */
    private static final Duration WAIT = Duration.ofSeconds(20);

    private static final Duration LONG = Duration.ofSeconds(60);

    private final Deadlines deadlines = new Deadlines("deadlines-test");

    @AfterEach
    void close() {
        deadlines.close();
    }

    /** A waited-for thing with a deadline, recording when and how often it was expired. */
    static final class Item extends CompletableFuture<String> implements Deadlines.Expiring {
        final long deadline;
        final AtomicInteger expiries = new AtomicInteger();
        volatile long expiredAt;

        Item(Duration in) {
            deadline = MonotonicClock.nanoTime() + in.toNanos();
        }

        @Override
        public long deadline() {
            return deadline;
        }

        @Override
        public void expire() {
            expiredAt = MonotonicClock.nanoTime();
            expiries.incrementAndGet();
            completeExceptionally(new IllegalStateException("late"));
        }
    }

    @Test
    void whatIsNotDoneByItsDeadlineIsExpiredThenAndNotBefore() {
        Item item = new Item(Duration.ofMillis(200));
        deadlines.track(item);

        await(() -> item.expiries.get() == 1);
        assertThat(item.expiredAt - item.deadline)
                .as("expired after its deadline")
                .isNotNegative();
        assertThat(item).isCompletedExceptionally();
    }

    @Test
    void aShortDeadlineTrackedAfterALongOneIsKeptToo() {
        Item first = new Item(LONG);
        deadlines.track(first);
        Item second = new Item(Duration.ofMillis(100));
        deadlines.track(second);

        await(() -> second.expiries.get() == 1);
        assertThat(second.expiredAt - second.deadline).isNotNegative();
        assertThat(first.expiries.get()).isZero();
        assertThat(first).isNotDone();
    }

    @Test
    void whatIsDoneIsDroppedAndNeverExpired() {
        List<Item> items = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            Item item = new Item(LONG);
            items.add(item);
            deadlines.track(item);
        }
        items.forEach(item -> item.complete("answer"));

        await(() -> deadlines.tracked() == 0);
        assertThat(items).allSatisfy(item -> assertThat(item.expiries.get()).isZero());
    }

    @Test
    void deadlinesTrackedByManyThreadsAtOnceAreAllKept() throws Exception {
        // deadlines 1-50 ms away, tracked while the thread is scanning and sleeping: one it missed
        // would never expire (nothing later would wake the thread for it), and the wait would fail
        long seed = MonotonicClock.nanoTime();
        ExecutorService trackers = Executors.newFixedThreadPool(8);
        List<Item> items = new ArrayList<>();
        try {
            List<Future<List<Item>>> tracked = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                SplittableRandom random = new SplittableRandom(seed + t);
                tracked.add(trackers.submit(() -> {
                    List<Item> mine = new ArrayList<>();
                    for (int i = 0; i < 500; i++) {
                        Item item = new Item(Duration.ofMillis(1 + random.nextInt(50)));
                        mine.add(item);
                        deadlines.track(item);
                        if (random.nextInt(10) == 0) {
                            item.complete("answer"); // some are answered in time
                        }
                    }
                    return mine;
                }));
            }
            for (Future<List<Item>> f : tracked) {
                items.addAll(f.get(WAIT.toSeconds(), TimeUnit.SECONDS));
            }
        } finally {
            trackers.shutdownNow();
        }

        await(() -> items.stream().allMatch(CompletableFuture::isDone));
        assertThat(items).as("seed %d", seed).allSatisfy(item -> {
            assertThat(item.expiries.get()).isLessThanOrEqualTo(1);
            if (item.expiries.get() == 1) {
                assertThat(item.expiredAt - item.deadline).isNotNegative();
            }
        });
        await(() -> deadlines.tracked() == 0);
    }

    @Test
    void afterClosingTheThreadEndsOnceNothingIsOutstanding() {
        Item outstanding = new Item(LONG);
        deadlines.track(outstanding);
        deadlines.close();

        // the thread still keeps the outstanding one's deadline ...
        assertThat(deadlines.ended()).isFalse();
        outstanding.complete("answer");
        // ... and ends once it is done
        await(deadlines::ended);
        assertThat(outstanding.expiries.get()).isZero();
    }

    @Test
    void afterClosingWhatIsOutstandingStillExpiresAtItsDeadline() {
        Item outstanding = new Item(Duration.ofMillis(200));
        deadlines.track(outstanding);
        deadlines.close();

        await(() -> outstanding.expiries.get() == 1);
        assertThat(outstanding.expiredAt - outstanding.deadline).isNotNegative();
        await(deadlines::ended);
    }

    @Test
    void aClosedThreadWithNothingOutstandingEnds() {
        deadlines.close();
        await(deadlines::ended);
    }

    private static void await(BooleanSupplier condition) {
        Conditions.await(condition, WAIT);
    }
}
