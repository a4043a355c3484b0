package dev.retrysafe.ratelimit;

import java.time.Clock;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Concurrency limits counted in this process only: one counter per limit and key, taken and given
 * back with a compare-and-set, so that acquiring and releasing take no lock and allocate only the
 * permit. Slots have no lease here: the process that holds a slot is the one that counts it, so
 * they cannot outlive their holder, and a permit is released by whoever admitted the request.
 *
 * <p>Memory follows the keys in recent use, not every key ever seen: once the store tracks
 * {@value #FIRST_SWEEP} keys or more, a new key starts a sweep if none ran in the last second, and
 * the sweep forgets every counter at zero that no request took since the sweep before. So the
 * store keeps about the keys used in the last one or two seconds (at least {@value #FIRST_SWEEP}
 * before it sweeps), and a key in steady use is never dropped and made again: when every counter
 * at zero was forgotten at each sweep, that cost an allocation and a map insertion per
 * acquisition over 100,000 keys walked in turn (bench/ratelimit/HISTORY.md). The clock is read
 * only when a key is new.
 *
 * <p>Taking the slots of several limits is all or none: a request takes them in order and gives
 * back what it took when one is full. It never lets more than a limit's requests in flight; two
 * requests racing for the last slots of two limits may, rarely, both be refused. This class is
 * threadsafe.
 */
public final class InMemoryConcurrencyStore implements ConcurrencyStore {

    private static final long RETRY_AFTER_SECONDS = 1;
    private static final int FIRST_SWEEP = 4096;
    /** Sweeps come at least this far apart, so a key used within it is kept. */
    private static final long SWEEP_INTERVAL_MILLIS = 1000;
    /** A counter's requests in flight: its low bits. */
    private static final int IN_FLIGHT = (1 << 30) - 1;
    /** Set by every acquisition, cleared by a sweep: the key was used since the last sweep. */
    private static final int USED = 1 << 30;
    /** A counter forgotten by a sweep. */
    private static final int DEAD = -1;

    /** Counters by limit name, then by key. */
    private final ConcurrentHashMap<String, ConcurrentHashMap<String, Counter>> counters = new ConcurrentHashMap<>();

    private final AtomicInteger keys = new AtomicInteger();
    /** Read only when a key is new, to space the sweeps. */
    private final Clock clock;
    /** When the last sweep ran (or the store was made); written under {@code this}. */
    private volatile long sweptAtMillis;
    /** Counters made so far (for tests of forgetting). */
    private final AtomicLong made = new AtomicLong();

    private InMemoryConcurrencyStore(Clock clock) {
        this.clock = clock;
        this.sweptAtMillis = clock.millis();
    }

    /** A new, empty store. */
    public static InMemoryConcurrencyStore create() {
        return new InMemoryConcurrencyStore(Clock.systemUTC());
    }

    /** A new, empty store that spaces its sweeps by {@code clock} (tests). */
    static InMemoryConcurrencyStore create(Clock clock) {
        return new InMemoryConcurrencyStore(clock);
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
        return counter == null ? 0 : inFlight(counter.get());
    }

    /** How many keys the store tracks now (for tests of forgetting). */
    int tracked() {
        return keys.get();
    }

    /** How many counters the store has made (for tests of forgetting): a key forgotten and seen again counts twice. */
    long made() {
        return made.get();
    }

    private static int inFlight(int counter) {
        return counter < 0 ? 0 : counter & IN_FLIGHT;
    }

    /** Nothing to close: the counters go with the store. */
    @Override
    public void close() {}

    private ConcurrencyDecision refused(ConcurrencySlot slot) {
        return new ConcurrencyDecision.Refused(
                slot, Math.max(inFlight("", slot), slot.policy().limit()), RETRY_AFTER_SECONDS);
    }

    /** The slot's counter, one higher and marked used; {@code null} when it is full. */
    private Counter take(ConcurrencySlot slot) {
        int limit = Math.min(slot.policy().limit(), IN_FLIGHT);
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
                    made.incrementAndGet();
                    if (keys.incrementAndGet() >= FIRST_SWEEP && sweepDue(clock.millis())) {
                        sweep();
                    }
                }
            }
            while (true) {
                int now = counter.get();
                if (now < 0) {
                    break; // forgotten by a sweep: look the key up again
                }
                int inFlight = now & IN_FLIGHT;
                if (inFlight >= limit) {
                    return null;
                }
                // the mark costs nothing: it goes in the same compare-and-set
                if (counter.compareAndSet(now, (inFlight + 1) | USED)) {
                    return counter;
                }
            }
        }
    }

    private static void giveBack(Counter counter) {
        counter.decrementAndGet();
    }

    /** Whether a second has passed since the last sweep (or the clock went back past it). */
    private boolean sweepDue(long nowMillis) {
        long since = nowMillis - sweptAtMillis;
        return since >= SWEEP_INTERVAL_MILLIS || since < 0;
    }

    /**
     * Forgets every counter at zero that was not used since the last sweep, and clears the mark of
     * the others.
     */
    private synchronized void sweep() {
        long nowMillis = clock.millis();
        if (!sweepDue(nowMillis)) {
            return; // another thread swept meanwhile
        }
        sweptAtMillis = nowMillis;
        for (ConcurrentHashMap<String, Counter> table : counters.values()) {
            table.forEach((key, counter) -> {
                while (true) {
                    int now = counter.get();
                    if (now == 0) {
                        // DEAD: a request that finds it looks the key up again
                        if (counter.compareAndSet(0, DEAD)) {
                            if (table.remove(key, counter)) {
                                keys.decrementAndGet();
                            }
                            return;
                        }
                    } else if (now < 0 || (now & USED) == 0 || counter.compareAndSet(now, now & IN_FLIGHT)) {
                        return; // dead already, in flight since before the last sweep, or unmarked now
                    }
                }
            });
        }
    }

    /**
     * Requests in flight for one key (its low bits), whether it was used since the last sweep
     * ({@link #USED}); {@link #DEAD} once forgotten.
     */
    @SuppressWarnings("serial") // never serialised
    private static final class Counter extends AtomicInteger {
        /** Made marked as used, so that the sweep its making may start keeps it. */
        Counter() {
            super(USED);
        }
    }

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
