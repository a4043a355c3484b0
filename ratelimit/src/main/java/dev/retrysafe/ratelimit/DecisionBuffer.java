package dev.retrysafe.ratelimit;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One {@link Decision} held in reusable arrays: what
 * {@link RateLimitStore#decide(String, List, DecisionBuffer)} fills instead of returning a new
 * {@code Decision}, so that a hot path (the HTTP filter) decides and renders its headers without
 * allocating. It holds exactly the facts of the {@code Decision} it stands for
 * ({@link #toDecision()}): an outcome, the states in policy order (state {@code i} is
 * {@link #state(int)} read field by field), the refusing state's index or the failed-closed
 * policy, and the {@code Retry-After}.
 *
 * <p>Stores fill it with {@link #clear}, {@link #reserve}, {@link #set} and {@link #rejected} or
 * {@link #unavailable}; {@link #set(Decision)} copies a {@code Decision}. A store may also keep
 * working memory of its own in it, so that a buffer reused with the same store allocates nothing
 * once it has grown to the request's policy count. Not threadsafe: one decision at a time.
 */
public final class DecisionBuffer {

    /** Which {@link Decision} the buffer stands for. */
    public enum Outcome {
        /** {@link Decision.Allowed}. */
        ALLOWED,
        /** {@link Decision.Rejected}. */
        REJECTED,
        /** {@link Decision.Unavailable}. */
        UNAVAILABLE
    }

    private Outcome outcome = Outcome.ALLOWED;
    private int size;
    // state i: refs[2i] its policy, refs[2i + 1] its key; longs[LONGS * i + ...] its figures
    // (two arrays, not one per field: a decision writes and the headers read two cache lines)
    private @Nullable Object[] refs;
    private long[] longs;
    private int refusedBy = -1;
    private @Nullable PolicyState refusedState;
    private @Nullable Policy failedClosed;
    private long retryAfterSeconds;

    private static final int LONGS = 6;
    private static final int LIMIT = 0;
    private static final int REMAINING = 1;
    private static final int RESET = 2;
    private static final int RETRY_AFTER = 3;
    private static final int NOW = 4;
    private static final int FLAGS = 5;
    private static final long KNOWN = 1;
    private static final long LOCAL = 2;

    /** Working memory of the store that last filled this buffer (see the class comment). */
    @Nullable
    Object storeScratch;

    /** An empty buffer (an allowed decision over no policy) with room for four states. */
    public DecisionBuffer() {
        this(4);
    }

    /** An empty buffer with room for {@code capacity} states before it grows. */
    public DecisionBuffer(int capacity) {
        if (capacity < 0) {
            throw new IllegalArgumentException("capacity must not be negative: " + capacity);
        }
        refs = new Object[2 * capacity];
        longs = new long[LONGS * capacity];
    }

    // --- reading --------------------------------------------------------------------------------

    /** Which decision this is. */
    public Outcome outcome() {
        return outcome;
    }

    /** How many states it holds. */
    public int size() {
        return size;
    }

    /** State {@code i}'s policy. */
    public Policy policy(int i) {
        return (Policy) Objects.requireNonNull(refs[2 * check(i)]);
    }

    /** State {@code i}'s key. */
    public String key(int i) {
        return (String) Objects.requireNonNull(refs[2 * check(i) + 1]);
    }

    /** State {@code i}'s quota: {@link PolicyState#limit()}. */
    public long limit(int i) {
        return longs[LONGS * check(i) + LIMIT];
    }

    /** {@link PolicyState#remaining()} of state {@code i}. */
    public long remaining(int i) {
        return longs[LONGS * check(i) + REMAINING];
    }

    /** {@link PolicyState#used()} of state {@code i}. */
    public long used(int i) {
        int at = LONGS * check(i);
        return longs[at + LIMIT] - longs[at + REMAINING];
    }

    /** {@link PolicyState#resetMicros()} of state {@code i}. */
    public long resetMicros(int i) {
        return longs[LONGS * check(i) + RESET];
    }

    /** {@link PolicyState#resetSeconds()} of state {@code i}. */
    public long resetSeconds(int i) {
        return Math.ceilDiv(longs[LONGS * check(i) + RESET], 1_000_000L);
    }

    /** {@link PolicyState#resetEpochSeconds()} of state {@code i}. */
    public long resetEpochSeconds(int i) {
        int at = LONGS * check(i);
        return Math.ceilDiv(longs[at + NOW] + longs[at + RESET], 1_000_000L);
    }

    /** {@link PolicyState#retryAfterMicros()} of state {@code i}. */
    public long retryAfterMicros(int i) {
        return longs[LONGS * check(i) + RETRY_AFTER];
    }

    /** {@link PolicyState#nowMicros()} of state {@code i}. */
    public long nowMicros(int i) {
        return longs[LONGS * check(i) + NOW];
    }

    /** {@link PolicyState#known()} of state {@code i}. */
    public boolean known(int i) {
        return (longs[LONGS * check(i) + FLAGS] & KNOWN) != 0;
    }

    /** {@link PolicyState#local()} of state {@code i}. */
    public boolean local(int i) {
        return (longs[LONGS * check(i) + FLAGS] & LOCAL) != 0;
    }

    /** Whether state {@code i} is a shadow policy's would-be refusal ({@link ShadowPolicies#wouldHaveRefused}). */
    public boolean wouldHaveRefused(int i) {
        return policy(i).shadow() && longs[LONGS * i + RETRY_AFTER] > 0;
    }

    /** State {@code i} as a {@link PolicyState} (allocates). */
    public PolicyState state(int i) {
        return new PolicyState(
                policy(i),
                key(i),
                limit(i),
                remaining(i),
                resetMicros(i),
                retryAfterMicros(i),
                nowMicros(i),
                known(i),
                local(i));
    }

    /**
     * The index of the state that refused ({@link Decision.Rejected#refusedBy()}), or -1 unless
     * {@linkplain Outcome#REJECTED rejected} (or when a copied decision's refusing state was not
     * one of its states, which no store of ours does).
     */
    public int refusedBy() {
        return outcome == Outcome.REJECTED ? refusedBy : -1;
    }

    /** The policy that failed closed ({@link Decision.Unavailable#failedClosed()}), or null unless unavailable. */
    public @Nullable Policy failedClosed() {
        return outcome == Outcome.UNAVAILABLE ? failedClosed : null;
    }

    /** The decision's {@code Retry-After} in seconds (at least 1), or 0 when allowed. */
    public long retryAfterSeconds() {
        return outcome == Outcome.ALLOWED ? 0 : retryAfterSeconds;
    }

    /**
     * The index of the state that {@link Decision#closestToExhaustion()} names, or -1 when none:
     * the known state of an enforced policy with the fewest remaining units relative to its limit.
     */
    public int closestToExhaustion() {
        int closest = -1;
        double closestShare = 0;
        for (int i = 0; i < size; i++) {
            int at = LONGS * i;
            if ((longs[at + FLAGS] & KNOWN) == 0 || ((Policy) Objects.requireNonNull(refs[2 * i])).shadow()) {
                continue;
            }
            double share = (double) longs[at + REMAINING] / longs[at + LIMIT];
            if (closest < 0 || share < closestShare) {
                closest = i;
                closestShare = share;
            }
        }
        return closest;
    }

    /** The {@link Decision} this buffer stands for (allocates). */
    public Decision toDecision() {
        List<PolicyState> states = new ArrayList<>(size);
        for (int i = 0; i < size; i++) {
            states.add(state(i));
        }
        return switch (outcome) {
            case ALLOWED -> new Decision.Allowed(states);
            case REJECTED ->
                new Decision.Rejected(
                        refusedState != null ? refusedState : states.get(refusedBy), retryAfterSeconds, states);
            case UNAVAILABLE ->
                new Decision.Unavailable(Objects.requireNonNull(failedClosed), retryAfterSeconds, states);
        };
    }

    // --- filling (stores) -----------------------------------------------------------------------

    /** Empties the buffer: an allowed decision over no policy. Returns this buffer. */
    public DecisionBuffer clear() {
        Arrays.fill(refs, 0, 2 * size, null);
        size = 0;
        outcome = Outcome.ALLOWED;
        refusedBy = -1;
        refusedState = null;
        failedClosed = null;
        retryAfterSeconds = 0;
        return this;
    }

    /**
     * Empties the buffer and makes it hold {@code n} states, to be written by {@link #set} (each
     * must be, before the buffer is read). Returns this buffer.
     */
    public DecisionBuffer reserve(int n) {
        if (n < 0) {
            throw new IllegalArgumentException("n must not be negative: " + n);
        }
        if (n < size) {
            Arrays.fill(refs, 2 * n, 2 * size, null); // the slots up to n are written again
        }
        size = 0;
        outcome = Outcome.ALLOWED;
        refusedBy = -1;
        refusedState = null;
        failedClosed = null;
        retryAfterSeconds = 0;
        if (2 * n > refs.length) {
            int capacity = Math.max(n, refs.length); // at least doubles
            refs = Arrays.copyOf(refs, 2 * capacity);
            longs = Arrays.copyOf(longs, LONGS * capacity);
        }
        size = n;
        return this;
    }

    /** Writes state {@code i}, with the fields of {@link PolicyState}. */
    public void set(
            int i,
            Policy policy,
            String key,
            long limit,
            long remaining,
            long resetMicros,
            long retryAfterMicros,
            long nowMicros,
            boolean known,
            boolean local) {
        check(i);
        refs[2 * i] = policy;
        refs[2 * i + 1] = key;
        int at = LONGS * i;
        longs[at + LIMIT] = limit;
        longs[at + REMAINING] = remaining;
        longs[at + RESET] = resetMicros;
        longs[at + RETRY_AFTER] = retryAfterMicros;
        longs[at + NOW] = nowMicros;
        longs[at + FLAGS] = (known ? KNOWN : 0) | (local ? LOCAL : 0);
    }

    /** Writes state {@code i} as {@code state}. */
    public void set(int i, PolicyState state) {
        set(
                i,
                state.policy(),
                state.key(),
                state.limit(),
                state.remaining(),
                state.resetMicros(),
                state.retryAfterMicros(),
                state.nowMicros(),
                state.known(),
                state.local());
    }

    /** Makes the decision a {@link Decision.Rejected} by state {@code refusedBy}. */
    public void rejected(int refusedBy, long retryAfterSeconds) {
        check(refusedBy);
        if (retryAfterSeconds < 1) {
            throw new IllegalArgumentException("retryAfterSeconds must be at least 1: " + retryAfterSeconds);
        }
        this.outcome = Outcome.REJECTED;
        this.refusedBy = refusedBy;
        this.retryAfterSeconds = retryAfterSeconds;
    }

    /** Makes the decision a {@link Decision.Unavailable} because {@code failedClosed} failed closed. */
    public void unavailable(Policy failedClosed, long retryAfterSeconds) {
        if (retryAfterSeconds < 1) {
            throw new IllegalArgumentException("retryAfterSeconds must be at least 1: " + retryAfterSeconds);
        }
        this.outcome = Outcome.UNAVAILABLE;
        this.failedClosed = Objects.requireNonNull(failedClosed, "failedClosed");
        this.retryAfterSeconds = retryAfterSeconds;
    }

    /**
     * Drops the states of {@linkplain PolicyMode#SHADOW shadow} policies, keeping the others in
     * order (and the refusing one's index right): a refusal by the enforced policies carries
     * theirs alone ({@link ShadowPolicies#decide}).
     */
    public void removeShadowStates() {
        int kept = 0;
        int refused = refusedBy;
        for (int i = 0; i < size; i++) {
            if (((Policy) Objects.requireNonNull(refs[2 * i])).shadow()) {
                if (i < refusedBy) {
                    refused--;
                }
                continue;
            }
            if (kept != i) {
                System.arraycopy(refs, 2 * i, refs, 2 * kept, 2);
                System.arraycopy(longs, LONGS * i, longs, LONGS * kept, LONGS);
            }
            kept++;
        }
        Arrays.fill(refs, 2 * kept, 2 * size, null);
        size = kept;
        refusedBy = refused;
    }

    /** Copies {@code decision} into this buffer. Returns this buffer. */
    public DecisionBuffer set(Decision decision) {
        List<PolicyState> states = decision.states();
        reserve(states.size());
        for (int i = 0; i < states.size(); i++) {
            set(i, states.get(i));
        }
        switch (decision) {
            case Decision.Allowed allowed -> {}
            case Decision.Rejected rejected -> {
                int index = indexOf(states, rejected.refusedBy());
                if (index < 0) {
                    // not one of the states (no store of ours does this): keep it as it is
                    outcome = Outcome.REJECTED;
                    refusedBy = -1;
                    refusedState = rejected.refusedBy();
                    retryAfterSeconds = rejected.retryAfterSeconds();
                } else {
                    rejected(index, rejected.retryAfterSeconds());
                }
            }
            case Decision.Unavailable unavailable ->
                unavailable(unavailable.failedClosed(), unavailable.retryAfterSeconds());
        }
        return this;
    }

    private static int indexOf(List<PolicyState> states, PolicyState state) {
        for (int i = 0; i < states.size(); i++) {
            if (states.get(i) == state) {
                return i;
            }
        }
        return states.indexOf(state);
    }

    private int check(int i) {
        if (i < 0 || i >= size) {
            throw new IndexOutOfBoundsException("state " + i + " of " + size);
        }
        return i;
    }
}
