package dev.retrysafe.ratelimit.internal;

import dev.retrysafe.ratelimit.Charge;
import dev.retrysafe.ratelimit.Decision;
import dev.retrysafe.ratelimit.FailMode;
import dev.retrysafe.ratelimit.Policy;
import dev.retrysafe.ratelimit.PolicyState;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The in-memory store's decisions: one {@link KeyTable} per policy, a store-wide bound on
 * tracked keys, and the all-or-nothing decision over several charges. A decision locks the
 * segments of its keys in one global order (table order, then segment index), so decisions on
 * overlapping keys serialize and never deadlock. Threadsafe.
 */
public final class InMemoryEngine {

    /** How long a client refused by a full store (fail-closed policy) is told to wait. */
    public static final long FULL_RETRY_MICROS = 1_000_000L;
    /** At most one sweep of every table per this much store time, so a full store stays cheap. */
    static final long FULL_SWEEP_INTERVAL_MICROS = 1_000_000L;

    private final MicrosClock clock;
    private final long maxKeys;
    /** The most policies whose tables are found by reference, without building their identity. */
    private static final int RECENT_TABLES = 64;

    private final ConcurrentHashMap<KeyTable.Identity, KeyTable> tables = new ConcurrentHashMap<>();
    /** Pairs of a policy and its table, found by reference: a lookup that allocates nothing. */
    private volatile Object[] recentTables = new Object[0];

    private final AtomicLong tableOrder = new AtomicLong();
    private final AtomicLong keys = new AtomicLong();
    // far enough in the past that the first full store sweeps, near enough that now - it cannot overflow
    private final AtomicLong lastFullSweep = new AtomicLong(Long.MIN_VALUE / 2);

    public InMemoryEngine(MicrosClock clock, long maxKeys) {
        this.clock = clock;
        this.maxKeys = maxKeys;
    }

    public long nowMicros() {
        return clock.nowMicros();
    }

    /**
     * The table of {@code policy}'s counters: one per name and algorithm, so that a plan's
     * scaled copy of a policy, or the policy after a reload that changed its limits, counts on the
     * same states (as Redis keys them).
     */
    public KeyTable table(Policy policy) {
        Object[] recent = recentTables;
        for (int i = 0; i < recent.length; i += 2) {
            if (recent[i] == policy) {
                return (KeyTable) recent[i + 1];
            }
        }
        KeyTable table = tableOf(policy);
        remember(recent, policy, table);
        return table;
    }

    /**
     * Adds {@code policy}'s table to the recent ones: a copy with one more pair, or a fresh array
     * when the bound is reached (policies reloaded many times). Two threads adding at once may
     * lose one pair, which the next lookup adds again.
     */
    private void remember(Object[] recent, Policy policy, KeyTable table) {
        Object[] next;
        if (recent.length >= 2 * RECENT_TABLES) {
            next = new Object[] {policy, table};
        } else {
            next = Arrays.copyOf(recent, recent.length + 2);
            next[recent.length] = policy;
            next[recent.length + 1] = table;
        }
        recentTables = next;
    }

    private KeyTable tableOf(Policy policy) {
        KeyTable.Identity identity = KeyTable.Identity.of(policy);
        KeyTable table = tables.get(identity);
        if (table != null) {
            return table;
        }
        return tables.computeIfAbsent(identity, id -> new KeyTable(policy, tableOrder.getAndIncrement()));
    }

    /** Keys tracked over every policy. */
    public long trackedKeys() {
        return keys.get();
    }

    /** Bytes of every table's arrays. */
    public long footprintBytes() {
        long bytes = 0;
        for (KeyTable table : tables.values()) {
            bytes += table.footprintBytes();
        }
        return bytes;
    }

    /**
     * The fast path: charges {@code cost} to {@code key} at {@code now} if it fits. Returns 0 when charged, else
     * the microseconds until it would fit. Allocates nothing unless the key is new to its segment
     * and the segment must grow.
     */
    public long tryAcquire(KeyTable table, String key, long cost, long now) {
        if (cost < 1) {
            throw new IllegalArgumentException("cost must be at least 1: " + cost);
        }
        Kernel kernel = table.kernel(); // a local limiter's table has one policy
        int hash = KeyTable.hash(key);
        Segment segment = table.segmentFor(hash);
        // The lock, not a CAS of the state: a CAS could land on another key's state after a sweep
        // or rebuild moved the slot, and would race the all-or-nothing multi-charge decisions.
        // See "Why a lock, not a compare-and-swap" in docs/rate-limits.md.
        segment.lock();
        try {
            int off = segment.find(key, hash);
            if (off < 0) {
                if (cost > kernel.largestCost()) {
                    return kernel.window;
                }
                off = insert(segment, kernel, key, hash, now);
                if (off < 0) {
                    return failsClosed(table.policy()) ? FULL_RETRY_MICROS : 0;
                }
            } else {
                long retryAfter = kernel.retryAfter(segment.states(), off, now, cost);
                if (retryAfter > 0) {
                    return retryAfter;
                }
            }
            kernel.charge(segment.states(), off, now, cost);
            return 0;
        } finally {
            segment.unlock();
        }
    }

    /** Whether a full store refuses a new key of {@code policy}: only an enforced, fail-closed one does. */
    static boolean failsClosed(Policy policy) {
        return policy.failMode() == FailMode.CLOSED && !policy.shadow();
    }

    /** What a decision over several charges does to them. */
    private enum Mode {
        CHARGE,
        PEEK,
        REFUND
    }

    /** Checks every charge and spends all of them only if all fit. */
    public Decision decide(List<Charge> charges) {
        return run(charges, Mode.CHARGE);
    }

    /** The states {@link #decide} would report, charging nothing. */
    public Decision peek(List<Charge> charges) {
        return run(charges, Mode.PEEK);
    }

    /**
     * Gives back every charge (as far as its state still holds it) and reports the states as
     * {@link #peek} then would. Tracks no new key, and stops tracking a key whose state is back
     * to an absent key's.
     */
    public Decision refund(List<Charge> charges) {
        return run(charges, Mode.REFUND);
    }

    private Decision run(List<Charge> charges, Mode mode) {
        int n = charges.size();
        if (n == 0) {
            return new Decision.Allowed(List.of());
        }
        KeyTable[] tablesOf = new KeyTable[n];
        int[] hashes = new int[n];
        Segment[] segments = new Segment[n];
        for (int i = 0; i < n; i++) {
            Charge c = charges.get(i);
            tablesOf[i] = table(c.policy());
            hashes[i] = KeyTable.hash(c.key());
            segments[i] = tablesOf[i].segmentFor(hashes[i]);
        }
        int[] lockOrder = lockOrder(tablesOf, hashes);
        for (int i : lockOrder) {
            segments[i].lock();
        }
        try {
            long now = clock.nowMicros();
            return switch (mode) {
                case CHARGE -> decideLocked(charges, tablesOf, hashes, segments, now);
                case PEEK -> peekLocked(charges, tablesOf, hashes, segments, now);
                case REFUND -> refundLocked(charges, tablesOf, hashes, segments, now);
            };
        } finally {
            for (int j = n - 1; j >= 0; j--) {
                segments[lockOrder[j]].unlock();
            }
        }
    }

    private Decision peekLocked(List<Charge> charges, KeyTable[] tablesOf, int[] hashes, Segment[] segments, long now) {
        List<PolicyState> states = new ArrayList<>(charges.size());
        for (int i = 0; i < charges.size(); i++) {
            Charge c = charges.get(i);
            int off = segments[i].find(c.key(), hashes[i]);
            long[] state = off < 0 ? tablesOf[i].kernelFor(c.policy()).absent() : segments[i].states();
            off = Math.max(off, 0);
            long retryAfter = tablesOf[i].kernelFor(c.policy()).retryAfter(state, off, now, c.cost());
            states.add(stateOf(c, tablesOf[i].kernelFor(c.policy()), state, off, now, retryAfter));
        }
        return new Decision.Allowed(states);
    }

    /**
     * Refunds each tracked key, then peeks. Each charge has a policy, so a table, of its own: removing
     * one charge's key moves no other charge's key.
     */
    private Decision refundLocked(
            List<Charge> charges, KeyTable[] tablesOf, int[] hashes, Segment[] segments, long now) {
        for (int i = 0; i < charges.size(); i++) {
            Charge c = charges.get(i);
            int off = segments[i].find(c.key(), hashes[i]);
            if (off < 0) {
                continue; // an absent key holds nothing to give back, and stays absent
            }
            Kernel kernel = tablesOf[i].kernelFor(c.policy());
            kernel.refund(segments[i].states(), off, now, c.cost());
            if (kernel.isIdle(segments[i].states(), off, now)) {
                segments[i].remove(off);
                keys.decrementAndGet();
            }
        }
        return peekLocked(charges, tablesOf, hashes, segments, now);
    }

    private Decision decideLocked(
            List<Charge> charges, KeyTable[] tablesOf, int[] hashes, Segment[] segments, long now) {
        int n = charges.size();
        int[] offs = new int[n];
        long[] retryAfters = new long[n];
        int refusedBy = -1;
        for (int i = 0; i < n; i++) {
            Charge c = charges.get(i);
            offs[i] = segments[i].find(c.key(), hashes[i]);
            long[] state = offs[i] < 0 ? tablesOf[i].kernelFor(c.policy()).absent() : segments[i].states();
            retryAfters[i] = tablesOf[i].kernelFor(c.policy()).retryAfter(state, Math.max(offs[i], 0), now, c.cost());
            if (retryAfters[i] > 0 && refusedBy < 0) {
                refusedBy = i;
            }
        }
        if (refusedBy >= 0) {
            return rejected(charges, tablesOf, segments, offs, retryAfters, refusedBy, now);
        }
        // every charge fits: track the new keys first, so that a full store charges nothing
        boolean[] untracked = new boolean[n];
        for (int i = 0; i < n; i++) {
            if (offs[i] < 0) {
                offs[i] = insert(
                        segments[i],
                        tablesOf[i].kernelFor(charges.get(i).policy()),
                        charges.get(i).key(),
                        hashes[i],
                        now);
                untracked[i] = offs[i] < 0;
                if (untracked[i] && failsClosed(charges.get(i).policy())) {
                    return unavailable(charges, tablesOf, segments, offs, untracked, i, now);
                }
            }
        }
        List<PolicyState> states = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            Charge c = charges.get(i);
            if (untracked[i]) {
                states.add(PolicyState.unknown(c.policy(), c.key(), now));
                continue;
            }
            Kernel kernel = tablesOf[i].kernelFor(c.policy());
            kernel.charge(segments[i].states(), offs[i], now, c.cost());
            states.add(stateOf(c, kernel, segments[i].states(), offs[i], now, 0));
        }
        return new Decision.Allowed(states);
    }

    private static Decision rejected(
            List<Charge> charges,
            KeyTable[] tablesOf,
            Segment[] segments,
            int[] offs,
            long[] retryAfters,
            int refusedBy,
            long now) {
        List<PolicyState> states = new ArrayList<>(charges.size());
        long retryAfterSeconds = 1;
        for (int i = 0; i < charges.size(); i++) {
            long[] state =
                    offs[i] < 0 ? tablesOf[i].kernelFor(charges.get(i).policy()).absent() : segments[i].states();
            PolicyState s = stateOf(
                    charges.get(i),
                    tablesOf[i].kernelFor(charges.get(i).policy()),
                    state,
                    Math.max(offs[i], 0),
                    now,
                    retryAfters[i]);
            states.add(s);
            retryAfterSeconds = Math.max(retryAfterSeconds, s.retryAfterSeconds());
        }
        return new Decision.Rejected(states.get(refusedBy), retryAfterSeconds, states);
    }

    private static Decision unavailable(
            List<Charge> charges,
            KeyTable[] tablesOf,
            Segment[] segments,
            int[] offs,
            boolean[] untracked,
            int failed,
            long now) {
        List<PolicyState> states = new ArrayList<>(charges.size());
        for (int i = 0; i < charges.size(); i++) {
            Charge c = charges.get(i);
            if (untracked[i] || i == failed) {
                states.add(PolicyState.unknown(c.policy(), c.key(), now));
                continue;
            }
            long[] state = offs[i] < 0 ? tablesOf[i].kernelFor(c.policy()).absent() : segments[i].states();
            states.add(stateOf(c, tablesOf[i].kernelFor(c.policy()), state, Math.max(offs[i], 0), now, 0));
        }
        return new Decision.Unavailable(charges.get(failed).policy(), FULL_RETRY_MICROS / 1_000_000L, states);
    }

    private static PolicyState stateOf(Charge c, Kernel kernel, long[] state, int off, long now, long retryAfter) {
        return new PolicyState(
                c.policy(),
                c.key(),
                c.policy().quota(),
                kernel.remaining(state, off, now),
                kernel.reset(state, off, now),
                retryAfter,
                now,
                true);
    }

    /**
     * Tracks a new key in {@code segment} (locked by the caller); returns its offset, or -1 when
     * the store holds {@code maxKeys} keys and none of them could be dropped.
     */
    int insert(Segment segment, Kernel kernel, String key, int hash, long now) {
        if (!reserveKey(segment, kernel, now)) {
            return -1;
        }
        int off = segment.insert(key, hash, now, kernel);
        // eviction, amortized: a full segment drops its idle keys before it grows
        keys.addAndGet(-segment.takeDropped());
        return off;
    }

    private boolean reserveKey(Segment held, Kernel heldKernel, long now) {
        if (keys.incrementAndGet() <= maxKeys) {
            return true;
        }
        keys.decrementAndGet();
        long last = lastFullSweep.get();
        if (now - last < FULL_SWEEP_INTERVAL_MICROS || !lastFullSweep.compareAndSet(last, now)) {
            return false;
        }
        keys.addAndGet(-held.sweep(now, heldKernel));
        for (KeyTable table : tables.values()) {
            // the held segment and any segment locked by another decision are skipped, never waited for
            keys.addAndGet(-table.sweepWithoutWaiting(now));
        }
        if (keys.incrementAndGet() <= maxKeys) {
            return true;
        }
        keys.decrementAndGet();
        return false;
    }

    /** Indices of the charges in lock order; rejects two charges of one policy. */
    private static int[] lockOrder(KeyTable[] tablesOf, int[] hashes) {
        int n = tablesOf.length;
        int[] order = new int[n];
        for (int i = 0; i < n; i++) {
            order[i] = i;
        }
        if (n == 1) {
            return order;
        }
        Integer[] boxed = Arrays.stream(order).boxed().toArray(Integer[]::new);
        Arrays.sort(boxed, (a, b) -> {
            int byTable = Long.compare(tablesOf[a].order(), tablesOf[b].order());
            return byTable != 0
                    ? byTable
                    : Integer.compare(KeyTable.segmentIndex(hashes[a]), KeyTable.segmentIndex(hashes[b]));
        });
        for (int i = 0; i < n; i++) {
            order[i] = boxed[i];
            if (i > 0 && tablesOf[order[i]] == tablesOf[order[i - 1]]) {
                throw new IllegalArgumentException("at most one charge per policy: "
                        + tablesOf[order[i]].policy().name());
            }
        }
        return order;
    }
}
