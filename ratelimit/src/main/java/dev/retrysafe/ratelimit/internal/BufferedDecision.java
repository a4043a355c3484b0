package dev.retrysafe.ratelimit.internal;

import dev.retrysafe.ratelimit.Charge;
import dev.retrysafe.ratelimit.DecisionBuffer;
import dev.retrysafe.ratelimit.Policy;
import dev.retrysafe.ratelimit.ShadowPolicies;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The in-memory store's decision into a {@link DecisionBuffer}: the all-or-nothing decision of
 * {@link InMemoryEngine#decide}, with shadow policies decided afterwards one by one as
 * {@link ShadowPolicies} describes, that allocates nothing once its {@link Scratch} has grown to
 * the request's policy count: tables are found by reference, the lock order is sorted in place,
 * and the states go into the buffer's arrays. Stateless and threadsafe; a scratch is not.
 */
public final class BufferedDecision {

    private static final int ALLOWED = 0;
    private static final int REJECTED = 1;
    private static final int UNAVAILABLE = 2;

    private BufferedDecision() {}

    /** Working memory of one decision at a time, kept in the buffer between decisions. Not threadsafe. */
    public static final class Scratch {
        private int[] index = new int[0];
        private KeyTable[] tables = new KeyTable[0];
        private Kernel[] kernels = new Kernel[0];
        private int[] hashes = new int[0];
        private Segment[] segments = new Segment[0];
        private int[] offs = new int[0];
        private long[] retryAfters = new long[0];
        private boolean[] untracked = new boolean[0];
        private int[] order = new int[0];
        // the outcome of the last step, beside its code
        private int refusedBy;
        private long retryAfterSeconds;
        private @Nullable Policy failed;

        private void ensure(int n) {
            if (index.length >= n) {
                return;
            }
            index = new int[n];
            tables = new KeyTable[n];
            kernels = new Kernel[n];
            hashes = new int[n];
            segments = new Segment[n];
            offs = new int[n];
            retryAfters = new long[n];
            untracked = new boolean[n];
            order = new int[n];
        }
    }

    /** Decides {@code charges} into {@code into}, as {@code ShadowPolicies.decide} over {@link InMemoryEngine#decide}. */
    public static void decide(InMemoryEngine engine, List<Charge> charges, DecisionBuffer into, Scratch scratch) {
        int n = charges.size();
        into.reserve(n);
        if (n == 0) {
            return;
        }
        if (n == 1 && !charges.getFirst().policy().shadow()) {
            finish(one(engine, charges.getFirst(), 0, into, scratch), into, scratch); // most requests
            return;
        }
        scratch.ensure(n);
        int shadows = 0;
        int enforced = -1; // the last enforced charge: the only one when all but one are shadow
        for (int i = 0; i < n; i++) {
            Charge c = charges.get(i);
            if (!c.policy().shadow()) {
                enforced = i;
            } else {
                shadows++;
                // a placeholder, so that every slot names its policy until its own step writes it
                into.set(i, c.policy(), c.key(), c.policy().quota(), c.policy().quota(), 0, 0, 0, false, false);
            }
        }
        if (shadows < n) {
            int outcome = shadows == n - 1
                    ? one(engine, charges.get(enforced), enforced, into, scratch)
                    : step(engine, charges, shadows > 0, into, scratch);
            if (outcome != ALLOWED) {
                finish(outcome, into, scratch);
                if (shadows > 0) {
                    into.removeShadowStates(); // a refusal is the enforced policies' alone
                }
                return;
            }
        }
        for (int i = 0; shadows > 0 && i < n; i++) {
            Policy policy = charges.get(i).policy();
            if (policy.shadow()) {
                shadows--;
                if (one(engine, charges.get(i), i, into, scratch) == REJECTED) {
                    ShadowLog.wouldHaveRefused(policy.name());
                }
            }
        }
    }

    private static void finish(int outcome, DecisionBuffer into, Scratch s) {
        if (outcome == REJECTED) {
            into.rejected(s.refusedBy, s.retryAfterSeconds);
        } else if (outcome == UNAVAILABLE) {
            into.unavailable(Objects.requireNonNull(s.failed), s.retryAfterSeconds);
        }
    }

    /**
     * One all-or-nothing decision over every charge but, with {@code skipShadow}, the shadow
     * ones; writes their states at their charges' indices and returns the outcome's code, its
     * details in {@code s}.
     */
    private static int step(
            InMemoryEngine engine, List<Charge> charges, boolean skipShadow, DecisionBuffer into, Scratch s) {
        int m = 0;
        for (int i = 0; i < charges.size(); i++) {
            Charge c = charges.get(i);
            if (skipShadow && c.policy().shadow()) {
                continue;
            }
            KeyTable table = engine.table(c.policy());
            s.index[m] = i;
            s.tables[m] = table;
            s.hashes[m] = KeyTable.hash(c.key());
            s.segments[m] = table.segmentFor(s.hashes[m]);
            s.untracked[m] = false;
            m++;
        }
        sortLockOrder(s, m);
        for (int k = 0; k < m; k++) {
            s.segments[s.order[k]].lock();
        }
        try {
            long now = engine.nowMicros();
            return decideLocked(engine, charges, m, into, s, now);
        } finally {
            for (int k = m - 1; k >= 0; k--) {
                s.segments[s.order[k]].unlock();
            }
        }
    }

    /**
     * {@link #step} over the one charge {@code c} (at index {@code i}): no lock order to sort,
     * nothing kept in the scratch's arrays. The same decision, written out for the common case.
     */
    private static int one(InMemoryEngine engine, Charge c, int i, DecisionBuffer into, Scratch s) {
        Policy policy = c.policy();
        String key = c.key();
        KeyTable table = engine.table(policy);
        int hash = KeyTable.hash(key);
        Segment segment = table.segmentFor(hash);
        segment.lock();
        try {
            long now = engine.nowMicros();
            Kernel kernel = table.kernelFor(policy);
            int off = segment.find(key, hash);
            long[] state = off < 0 ? kernel.absent() : segment.states();
            long retryAfter = kernel.retryAfter(state, Math.max(off, 0), now, c.cost());
            if (retryAfter > 0) {
                int at = Math.max(off, 0);
                into.set(
                        i,
                        policy,
                        key,
                        policy.quota(),
                        kernel.remaining(state, at, now),
                        kernel.reset(state, at, now),
                        retryAfter,
                        now,
                        true,
                        false);
                s.refusedBy = i;
                s.retryAfterSeconds = Math.max(1, Math.ceilDiv(retryAfter, 1_000_000L));
                return REJECTED;
            }
            if (off < 0) {
                off = engine.insert(segment, kernel, key, hash, now);
                if (off < 0) { // the store is full
                    writeUnknown(c, i, into, now);
                    if (InMemoryEngine.failsClosed(policy)) {
                        s.failed = policy;
                        s.retryAfterSeconds = InMemoryEngine.FULL_RETRY_MICROS / 1_000_000L;
                        return UNAVAILABLE;
                    }
                    return ALLOWED;
                }
            }
            long[] states = segment.states();
            kernel.charge(states, off, now, c.cost());
            into.set(
                    i,
                    policy,
                    key,
                    policy.quota(),
                    kernel.remaining(states, off, now),
                    kernel.reset(states, off, now),
                    0,
                    now,
                    true,
                    false);
            return ALLOWED;
        } finally {
            segment.unlock();
        }
    }

    /** Insertion sort by (table order, segment index): few charges, no boxing; rejects two charges of one policy. */
    private static void sortLockOrder(Scratch s, int m) {
        for (int k = 0; k < m; k++) {
            int j = k;
            while (j > 0 && locksBefore(s, k, s.order[j - 1])) {
                s.order[j] = s.order[j - 1];
                j--;
            }
            s.order[j] = k;
        }
        for (int k = 1; k < m; k++) {
            if (s.tables[s.order[k]] == s.tables[s.order[k - 1]]) {
                throw new IllegalArgumentException("at most one charge per policy: "
                        + s.tables[s.order[k]].policy().name());
            }
        }
    }

    private static boolean locksBefore(Scratch s, int a, int b) {
        int byTable = Long.compare(s.tables[a].order(), s.tables[b].order());
        if (byTable != 0) {
            return byTable < 0;
        }
        return KeyTable.segmentIndex(s.hashes[a]) < KeyTable.segmentIndex(s.hashes[b]);
    }

    private static int decideLocked(
            InMemoryEngine engine, List<Charge> charges, int m, DecisionBuffer into, Scratch s, long now) {
        int refusedBy = -1;
        for (int j = 0; j < m; j++) {
            Charge c = charges.get(s.index[j]);
            Kernel kernel = s.tables[j].kernelFor(c.policy());
            s.kernels[j] = kernel;
            s.offs[j] = s.segments[j].find(c.key(), s.hashes[j]);
            long[] state = s.offs[j] < 0 ? kernel.absent() : s.segments[j].states();
            s.retryAfters[j] = kernel.retryAfter(state, Math.max(s.offs[j], 0), now, c.cost());
            if (s.retryAfters[j] > 0 && refusedBy < 0) {
                refusedBy = j;
            }
        }
        if (refusedBy >= 0) {
            long retryAfterSeconds = 1;
            for (int j = 0; j < m; j++) {
                write(charges, j, s, into, now, s.retryAfters[j]);
                retryAfterSeconds = Math.max(retryAfterSeconds, Math.ceilDiv(s.retryAfters[j], 1_000_000L));
            }
            s.refusedBy = s.index[refusedBy];
            s.retryAfterSeconds = retryAfterSeconds;
            return REJECTED;
        }
        // every charge fits: track the new keys first, so that a full store charges nothing
        for (int j = 0; j < m; j++) {
            if (s.offs[j] < 0) {
                Charge c = charges.get(s.index[j]);
                s.offs[j] = engine.insert(s.segments[j], s.kernels[j], c.key(), s.hashes[j], now);
                s.untracked[j] = s.offs[j] < 0;
                if (s.untracked[j] && InMemoryEngine.failsClosed(c.policy())) {
                    return unavailable(charges, m, j, into, s, now);
                }
            }
        }
        for (int j = 0; j < m; j++) {
            Charge c = charges.get(s.index[j]);
            if (s.untracked[j]) {
                writeUnknown(c, s.index[j], into, now);
                continue;
            }
            s.kernels[j].charge(s.segments[j].states(), s.offs[j], now, c.cost());
            write(charges, j, s, into, now, 0);
        }
        return ALLOWED;
    }

    private static int unavailable(List<Charge> charges, int m, int failed, DecisionBuffer into, Scratch s, long now) {
        for (int j = 0; j < m; j++) {
            if (s.untracked[j] || j == failed) {
                writeUnknown(charges.get(s.index[j]), s.index[j], into, now);
            } else {
                write(charges, j, s, into, now, 0);
            }
        }
        s.failed = charges.get(s.index[failed]).policy();
        s.retryAfterSeconds = InMemoryEngine.FULL_RETRY_MICROS / 1_000_000L;
        return UNAVAILABLE;
    }

    /** Writes the state of participant {@code j} (tracked or absent) as the store holds it now. */
    private static void write(List<Charge> charges, int j, Scratch s, DecisionBuffer into, long now, long retryAfter) {
        Charge c = charges.get(s.index[j]);
        Kernel kernel = s.kernels[j];
        long[] state = s.offs[j] < 0 ? kernel.absent() : s.segments[j].states();
        int off = Math.max(s.offs[j], 0);
        into.set(
                s.index[j],
                c.policy(),
                c.key(),
                c.policy().quota(),
                kernel.remaining(state, off, now),
                kernel.reset(state, off, now),
                retryAfter,
                now,
                true,
                false);
    }

    private static void writeUnknown(Charge c, int i, DecisionBuffer into, long now) {
        long quota = c.policy().quota();
        into.set(i, c.policy(), c.key(), quota, quota, 0, 0, now, false, false);
    }
}
