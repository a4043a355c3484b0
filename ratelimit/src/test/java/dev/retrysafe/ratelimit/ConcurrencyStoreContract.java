package dev.retrysafe.ratelimit;

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
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What every {@link ConcurrencyStore} must do, written once and run against each backend (in
 * memory here; Redis in {@code retrysafe-ratelimit-redis} through this module's test-jar). A
 * backend implements {@link #newStore()}: an empty store, closed after each test. What only a
 * shared store does (leases that run out when their holder is gone) is tested beside it.
 */
public abstract class ConcurrencyStoreContract {

    protected static final String PARTITION = "a:acct_1";
    private static final Duration DEADLINE = Duration.ofSeconds(30);

    protected ConcurrencyStore store;

    /** For subclasses, one per backend. */
    protected ConcurrencyStoreContract() {}

    /** An empty store. */
    protected abstract ConcurrencyStore newStore();

    @BeforeEach
    void openStore() {
        store = newStore();
    }

    @AfterEach
    void closeStore() {
        store.close();
    }

    protected static ConcurrencyPolicy limit(String name, int limit) {
        return ConcurrencyPolicy.builder(name).limit(limit).build();
    }

    protected ConcurrencyDecision acquire(ConcurrencySlot... slots) {
        return store.acquire(PARTITION, List.of(slots));
    }

    protected static Permit permit(ConcurrencyDecision decision) {
        assertThat(decision).isInstanceOf(ConcurrencyDecision.Acquired.class);
        return ((ConcurrencyDecision.Acquired) decision).permit();
    }

    protected static ConcurrencyDecision.Refused refused(ConcurrencyDecision decision) {
        assertThat(decision).isInstanceOf(ConcurrencyDecision.Refused.class);
        return (ConcurrencyDecision.Refused) decision;
    }

    @Test
    void admitsUpToTheLimitThenRefusesNamingThePolicy() {
        ConcurrencySlot slot = new ConcurrencySlot(limit("three", 3), "key_1");

        List<Permit> held = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            held.add(permit(acquire(slot)));
        }
        ConcurrencyDecision.Refused fourth = refused(acquire(slot));

        assertThat(fourth.refusedBy()).isEqualTo(slot);
        assertThat(fourth.inFlight()).isEqualTo(3);
        assertThat(fourth.retryAfterSeconds()).isEqualTo(1);
        assertThat(store.inFlight(PARTITION, slot)).isEqualTo(3);
        assertThat(held.get(0).slots()).containsExactly(slot);
    }

    @Test
    void aReleasedSlotIsFreeAgainAndReleasingTwiceGivesBackOnce() {
        ConcurrencySlot slot = new ConcurrencySlot(limit("two", 2), "key_1");
        Permit first = permit(acquire(slot));
        Permit second = permit(acquire(slot));
        refused(acquire(slot));

        first.release();
        first.release();

        assertThat(store.inFlight(PARTITION, slot)).isEqualTo(1);
        Permit third = permit(acquire(slot));
        refused(acquire(slot));
        second.release();
        third.release();
        assertThat(store.inFlight(PARTITION, slot)).isZero();
    }

    @Test
    void takesEverySlotOrNoneAndNamesTheFirstFullLimit() {
        ConcurrencySlot perKey = new ConcurrencySlot(limit("per-key", 5), "key_1");
        ConcurrencySlot perAccount = new ConcurrencySlot(limit("per-account", 1), "acct_1");
        ConcurrencySlot otherKey = new ConcurrencySlot(limit("per-key", 5), "key_2");
        Permit holder = permit(acquire(perKey, perAccount));

        ConcurrencyDecision.Refused refused = refused(acquire(otherKey, perAccount));

        assertThat(refused.refusedBy()).isEqualTo(perAccount);
        assertThat(store.inFlight(PARTITION, otherKey)).as("nothing taken").isZero();
        assertThat(store.inFlight(PARTITION, perKey)).isEqualTo(1);
        holder.release();
        assertThat(store.inFlight(PARTITION, perKey)).isZero();
        assertThat(store.inFlight(PARTITION, perAccount)).isZero();
        permit(acquire(otherKey, perAccount)).release();
    }

    @Test
    void keysAndLimitsCountApart() {
        ConcurrencyPolicy one = limit("one", 1);
        permit(acquire(new ConcurrencySlot(one, "key_1")));

        permit(acquire(new ConcurrencySlot(one, "key_2")));
        permit(acquire(new ConcurrencySlot(limit("other", 1), "key_1")));
        refused(acquire(new ConcurrencySlot(one, "key_1")));
    }

    @Test
    void noSlotsIsAdmittedFree() {
        Permit permit = permit(store.acquire(PARTITION, List.of()));

        assertThat(permit.slots()).isEmpty();
        permit.release();
    }

    @Test
    void concurrentRequestsNeverExceedTheLimit() throws Exception {
        int limit = 4;
        int threads = 12;
        int rounds = 150;
        ConcurrencySlot slot = new ConcurrencySlot(limit("hot", limit), "key_1");
        AtomicInteger holding = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        AtomicInteger admitted = new AtomicInteger();
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<Void>> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                Callable<Void> worker = () -> {
                    if (!start.await(DEADLINE.toSeconds(), TimeUnit.SECONDS)) {
                        throw new AssertionError("start gate never opened");
                    }
                    for (int i = 0; i < rounds; i++) {
                        if (acquire(slot) instanceof ConcurrencyDecision.Acquired acquired) {
                            admitted.incrementAndGet();
                            most.accumulateAndGet(holding.incrementAndGet(), Math::max);
                            Thread.yield();
                            holding.decrementAndGet();
                            acquired.permit().release();
                        }
                    }
                    return null;
                };
                workers.add(pool.submit(worker));
            }
            start.countDown();
            for (Future<Void> worker : workers) {
                worker.get(DEADLINE.toSeconds(), TimeUnit.SECONDS); // a worker's failure fails the test
            }
        } finally {
            pool.shutdownNow();
            assertThat(pool.awaitTermination(DEADLINE.toSeconds(), TimeUnit.SECONDS))
                    .isTrue();
        }

        assertThat(most.get()).isBetween(1, limit);
        // how many of the 1,800 tries get in depends on how fast a release reaches the store (a
        // round trip on Redis) against the other threads' tries: only that some did is certain
        assertThat(admitted.get()).isGreaterThanOrEqualTo(limit);
        assertThat(store.inFlight(PARTITION, slot)).as("every slot given back").isZero();
        // and the limit is whole again: as many as it allows get in at once
        List<Permit> again = new ArrayList<>();
        for (int i = 0; i < limit; i++) {
            again.add(permit(acquire(slot)));
        }
        assertThat(acquire(slot)).isInstanceOf(ConcurrencyDecision.Refused.class);
        again.forEach(Permit::release);
    }
}
