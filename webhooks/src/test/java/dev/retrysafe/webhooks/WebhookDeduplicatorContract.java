package dev.retrysafe.webhooks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.retrysafe.testkit.FakeClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The behaviour every {@link WebhookDeduplicator} must show, written once and run against each
 * backend by a subclass.
 */
abstract class WebhookDeduplicatorContract {

    static final Duration TTL = Duration.ofHours(48);

    protected final FakeClock clock = new FakeClock();

    /** A new de-duplicator with time to live {@link #TTL} on {@link #clock}, remembering nothing. */
    protected abstract WebhookDeduplicator deduplicator();

    @Test
    void firstDeliveryIsFirstAndEveryCopyIsNot() {
        WebhookDeduplicator dedup = deduplicator();

        assertThat(dedup.firstTime("msg_1")).isTrue();
        assertThat(dedup.firstTime("msg_1")).isFalse();
        assertThat(dedup.firstTime("msg_1")).isFalse();
        assertThat(dedup.firstTime("msg_2")).isTrue();
    }

    @Test
    void forgottenIdIsFirstAgainSoARedeliveryRunsTheHandler() {
        WebhookDeduplicator dedup = deduplicator();
        dedup.firstTime("msg_1");

        dedup.forget("msg_1");
        dedup.forget("msg_never_seen");

        assertThat(dedup.firstTime("msg_1")).isTrue();
        assertThat(dedup.firstTime("msg_1")).isFalse();
    }

    @Test
    void idIsRememberedUntilItsTimeToLiveRunsOut() {
        WebhookDeduplicator dedup = deduplicator();
        dedup.firstTime("msg_1");

        clock.advance(TTL.minusMillis(1));
        assertThat(dedup.firstTime("msg_1")).isFalse();
        clock.advance(Duration.ofMillis(1));
        assertThat(dedup.firstTime("msg_1")).as("expired").isTrue();
        assertThat(dedup.firstTime("msg_1")).as("and remembered afresh").isFalse();
        clock.advance(TTL.minusMillis(1));
        assertThat(dedup.firstTime("msg_1")).isFalse();
    }

    @Test
    void idsMustBeOneTo255Characters() {
        WebhookDeduplicator dedup = deduplicator();

        assertThat(dedup.firstTime("x".repeat(255))).isTrue();
        assertThatThrownBy(() -> dedup.firstTime("")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> dedup.firstTime("x".repeat(256))).hasMessageContaining("was 256");
    }

    /**
     * 10,000 deliveries of 1,000 ids from 16 threads; one in ten handler runs fails, forgets its
     * id and is redelivered later (the sender's retry). Every id's handler must succeed exactly
     * once and never run twice at the same time.
     */
    @Test
    void concurrentDuplicatesRunEachHandlerExactlyOnce() throws Exception {
        WebhookDeduplicator dedup = deduplicator();
        long seed = System.nanoTime();
        Random random = new Random(seed);
        List<String> deliveries = new ArrayList<>();
        for (int copy = 0; copy < 10; copy++) {
            for (int id = 0; id < 1_000; id++) {
                deliveries.add("msg_" + id);
            }
        }
        Collections.shuffle(deliveries, random);
        Queue<String> queue = new ConcurrentLinkedQueue<>(deliveries);
        Map<String, AtomicInteger> successes = new ConcurrentHashMap<>();
        Map<String, AtomicInteger> running = new ConcurrentHashMap<>();
        AtomicInteger failures = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();

        int threads = 16;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch ready = new CountDownLatch(threads);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<?>> workers = new ArrayList<>();
        try {
            for (int t = 0; t < threads; t++) {
                Random own = new Random(seed + t);
                workers.add(pool.submit(() -> {
                    ready.countDown();
                    if (!start.await(30, TimeUnit.SECONDS)) {
                        throw new IllegalStateException("start gate never opened");
                    }
                    for (String id; (id = queue.poll()) != null; ) {
                        if (!dedup.firstTime(id)) {
                            continue; // a duplicate: acknowledged without running the handler
                        }
                        if (running.computeIfAbsent(id, k -> new AtomicInteger())
                                        .incrementAndGet()
                                > 1) {
                            overlaps.incrementAndGet();
                        }
                        boolean failed = own.nextInt(10) == 0;
                        running.get(id).decrementAndGet();
                        if (failed) {
                            failures.incrementAndGet();
                            dedup.forget(id);
                            queue.add(id); // the sender redelivers
                        } else {
                            successes
                                    .computeIfAbsent(id, k -> new AtomicInteger())
                                    .incrementAndGet();
                        }
                    }
                    return null;
                }));
            }
            assertThat(ready.await(30, TimeUnit.SECONDS)).as("workers ready").isTrue();
            start.countDown();
            for (Future<?> worker : workers) {
                worker.get(120, TimeUnit.SECONDS); // rethrows a worker's failure
            }
        } finally {
            pool.shutdownNow();
            assertThat(pool.awaitTermination(30, TimeUnit.SECONDS))
                    .as("workers stopped")
                    .isTrue();
        }

        String why = "seed " + seed;
        assertThat(successes).as(why).hasSize(1_000);
        assertThat(successes.values()).as(why).allMatch(count -> count.get() == 1);
        assertThat(overlaps).as(why).hasValue(0);
        assertThat(failures.get()).as(why).isPositive();
    }
}
