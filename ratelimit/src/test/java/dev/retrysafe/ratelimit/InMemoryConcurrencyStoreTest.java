package dev.retrysafe.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.retrysafe.testkit.FakeClock;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The concurrency contract in memory, and what the in-memory store adds: forgetting idle keys. */
class InMemoryConcurrencyStoreTest extends ConcurrencyStoreContract {

    /** Spaces the sweeps (at least a second apart); still unless a test moves it. */
    private final FakeClock clock = new FakeClock();

    @Override
    protected ConcurrencyStore newStore() {
        return InMemoryConcurrencyStore.create(clock);
    }

    private InMemoryConcurrencyStore inMemory() {
        return (InMemoryConcurrencyStore) store;
    }

    @Test
    void keysBackAtZeroAreForgottenAndCountAfreshWhenSeenAgain() {
        ConcurrencyPolicy one = limit("one", 1);
        Permit held = permit(acquire(new ConcurrencySlot(one, "held")));
        for (int i = 0; i < 100_000; i++) {
            permit(acquire(new ConcurrencySlot(one, "key_" + i))).release();
            clock.advance(Duration.ofMillis(1));
        }

        // memory follows the keys of the last second or two (1,000 to 2,000 here), once past the
        // 4,096 keys the store tracks before it sweeps
        assertThat(inMemory().tracked()).isLessThanOrEqualTo(4096 + 2000);
        // the held key survived every sweep, and the swept ones still count from zero
        refused(acquire(new ConcurrencySlot(one, "held")));
        Permit again = permit(acquire(new ConcurrencySlot(one, "key_7")));
        refused(acquire(new ConcurrencySlot(one, "key_7")));
        again.release();
        held.release();
        assertThat(store.inFlight(PARTITION, new ConcurrencySlot(one, "held"))).isZero();
    }

    /**
     * Keys taken in turn within every second are never forgotten, though they are at zero between
     * requests and sweeps run (made by a stream of keys seen once): none is made twice.
     */
    @Test
    void keysInSteadyUseAreKeptAcrossSweeps() {
        ConcurrencyPolicy steady = limit("steady", 1);
        ConcurrencyPolicy once = limit("once", 1);
        int steadyKeys = 1000;
        int steps = 50_000;
        for (int i = 0; i < steps; i++) {
            // each steady key once a second (a step is a millisecond), each other key once ever
            permit(acquire(new ConcurrencySlot(steady, "key_" + (i % steadyKeys))))
                    .release();
            permit(acquire(new ConcurrencySlot(once, "key_" + i))).release();
            clock.advance(Duration.ofMillis(1));
        }

        assertThat(inMemory().made()).isEqualTo(steadyKeys + steps);
        // and the keys seen once were forgotten, sweep after sweep, but those of the last second or two
        assertThat(inMemory().tracked()).isLessThanOrEqualTo(4096 + 2000);
    }

    /** A clock that stands still holds off every sweep: nothing used within a second is forgotten. */
    @Test
    void noSweepWithinASecondOfTheLast() {
        ConcurrencyPolicy one = limit("one", 1);
        for (int i = 0; i < 20_000; i++) {
            permit(acquire(new ConcurrencySlot(one, "key_" + i))).release();
        }
        assertThat(inMemory().tracked()).isEqualTo(20_000);
        assertThat(inMemory().made()).isEqualTo(20_000);
    }
}
