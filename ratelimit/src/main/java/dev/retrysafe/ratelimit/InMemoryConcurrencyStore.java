package dev.retrysafe.ratelimit;

import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Concurrency limits counted in this process only: one counter per limit and key, taken and given
 * back with a compare-and-set, so that acquiring and releasing take no lock and allocate only the
 * permit. Slots have no lease here: the process that holds a slot is the one that counts it, so
 * they cannot outlive their holder, and a permit is released by whoever admitted the request. A
 * counter back at zero is forgotten at the next sweep (each time the number of keys has doubled),
 * so memory follows the keys in flight, not every key ever seen.
 *
 * <p>Taking the slots of several limits is all or none: a request takes them in order and gives
 * back what it took when one is full. It never lets more than a limit's requests in flight; two
 * requests racing for the last slots of two limits may, rarely, both be refused. This class is
 * threadsafe.
 */
public final class InMemoryConcurrencyStore implements ConcurrencyStore {

    private static final long RETRY_AFTER_SECONDS = 1;
    private static final int FIRST_SWEEP = 4096;

    /** Counters by limit name, then by key. */
    private final ConcurrentHashMap<String, ConcurrentHashMap<String, Counter>> counters = new ConcurrentHashMap<>();

    private final AtomicInteger keys = new AtomicInteger();
    private volatile int sweepAt = FIRST_SWEEP;

    private InMemoryConcurrencyStore() {}

    /** A new, empty store. */
    public static InMemoryConcurrencyStore create() {
        return new InMemoryConcurrencyStore();
    }

    @Override
    public ConcurrencyDecision acquire(String partition, List<ConcurrencySlot> slots) {
        int n = slots.size();
        if (n == 1) { // the usual case, without an array
            ConcurrencySlot slot = slots.get(0);
            Counter counter = take(slot);
            return counter == null ? refused(slot) : new ConcurrencyDecision.Acquired(new One(slot, counter));
        }
        Counter[] taken = new Counter[n];
        for (int i = 0; i < n; i++) {
            ConcurrencySlot slot = slots.get(i);
            Counter counter = take(slot);
            if (counter == null) {
                for (int j = 0; j < i; j++) {
                    giveBack(taken[j]);
                }
                return refused(slot);
            }
            taken[i] = counter;
        }
        return new ConcurrencyDecision.Acquired(new Many(List.copyOf(slots), taken));
    }

    @Override
    public int inFlight(String partition, ConcurrencySlot slot) {
        ConcurrentHashMap<String, Counter> table = counters.get(slot.policy().name());
        Counter counter = table == null ? null : table.get(slot.key());
        return counter == null ? 0 : Math.max(0, counter.get());
    }

    /** Nothing to close: the counters go with the store. */
    @Override
    public void close() {}

    private ConcurrencyDecision refused(ConcurrencySlot slot) {
        return new ConcurrencyDecision.Refused(
                slot, Math.max(inFlight("", slot), slot.policy().limit()), RETRY_AFTER_SECONDS);
    }

    /** The slot's counter, one higher; {@code null} when it is full. */
    private Counter take(ConcurrencySlot slot) {
        int limit = slot.policy().limit();
        ConcurrentHashMap<String, Counter> table = counters.get(slot.policy().name());
        if (table == null) {
            table = counters.computeIfAbsent(slot.policy().name(), name -> new ConcurrentHashMap<>());
        }
        while (true) {
            Counter counter = table.get(slot.key());
            if (counter == null) {
                Counter fresh = new Counter();
                counter = table.putIfAbsent(slot.key(), fresh);
                if (counter == null) {
                    counter = fresh;
                    if (keys.incrementAndGet() >= sweepAt) {
                        sweep();
                    }
                }
            }
            while (true) {
                int now = counter.get();
                if (now < 0) {
                    break; // forgotten by a sweep: look the key up again
                }
                if (now >= limit) {
                    return null;
                }
                if (counter.compareAndSet(now, now + 1)) {
                    return counter;
                }
            }
        }
    }

    private static void giveBack(Counter counter) {
        counter.decrementAndGet();
    }

    /** Forgets every counter at zero; the next sweep waits until the keys have doubled. */
    private synchronized void sweep() {
        if (keys.get() < sweepAt) {
            return; // another thread swept meanwhile
        }
        for (ConcurrentHashMap<String, Counter> table : counters.values()) {
            table.forEach((key, counter) -> {
                // -1 marks it dead: a request that finds it looks the key up again
                if (counter.compareAndSet(0, -1) && table.remove(key, counter)) {
                    keys.decrementAndGet();
                }
            });
        }
        sweepAt = Math.max(FIRST_SWEEP, keys.get() * 2);
    }

    /** Requests in flight for one key; {@code -1} once forgotten. */
    @SuppressWarnings("serial") // never serialised
    private static final class Counter extends AtomicInteger {}

    /** A permit of one slot. */
    @SuppressWarnings("serial") // never serialised
    private static final class One extends AtomicInteger implements Permit {
        private final ConcurrencySlot slot;
        private final Counter counter;

        One(ConcurrencySlot slot, Counter counter) {
            this.slot = slot;
            this.counter = counter;
        }

        @Override
        public List<ConcurrencySlot> slots() {
            return List.of(slot);
        }

        @Override
        public void release() {
            if (compareAndSet(0, 1)) {
                giveBack(counter);
            }
        }
    }

    /** A permit of several slots. */
    @SuppressWarnings("serial") // never serialised
    private static final class Many extends AtomicInteger implements Permit {
        private final List<ConcurrencySlot> slots;
        private final Counter[] counters;

        Many(List<ConcurrencySlot> slots, Counter[] counters) {
            this.slots = slots;
            this.counters = counters;
        }

        @Override
        public List<ConcurrencySlot> slots() {
            return slots;
        }

        @Override
        public void release() {
            if (compareAndSet(0, 1)) {
                for (Counter counter : counters) {
                    giveBack(counter);
                }
            }
        }
    }
}
