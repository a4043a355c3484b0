package dev.retrysafe.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The concurrency contract in memory, and what the in-memory store adds: forgetting idle keys. */
class InMemoryConcurrencyStoreTest extends ConcurrencyStoreContract {

    @Override
    protected ConcurrencyStore newStore() {
        return InMemoryConcurrencyStore.create();
    }

    @Test
    void keysBackAtZeroAreForgottenAndCountAfreshWhenSeenAgain() {
        ConcurrencyPolicy one = limit("one", 1);
        Permit held = permit(acquire(new ConcurrencySlot(one, "held")));
        for (int i = 0; i < 20_000; i++) {
            permit(acquire(new ConcurrencySlot(one, "key_" + i))).release();
        }

        // the held key survived every sweep, and the swept ones still count from zero
        refused(acquire(new ConcurrencySlot(one, "held")));
        Permit again = permit(acquire(new ConcurrencySlot(one, "key_7")));
        refused(acquire(new ConcurrencySlot(one, "key_7")));
        again.release();
        held.release();
        assertThat(store.inFlight(PARTITION, new ConcurrencySlot(one, "held"))).isZero();
    }
}
