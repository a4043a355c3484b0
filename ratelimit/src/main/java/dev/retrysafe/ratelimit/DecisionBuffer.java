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
    private @Nullable Policy[] policies;
    private @Nullable String[] keys;
    private long[] limits;
    private long[] remaining;
    private long[] resetMicros;
    private long[] retryAfterMicros;
    private long[] nowMicros;
    private boolean[] known;
    private boolean[] local;
    private int refusedBy = -1;
    private @Nullable PolicyState refusedState;
    private @Nullable Policy failedClosed;
    private long retryAfterSeconds;

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
        policies = new Policy[capacity];
        keys = new String[capacity];
        limits = new long[capacity];
        remaining = new long[capacity];
        resetMicros = new long[capacity];
        retryAfterMicros = new long[capacity];
        nowMicros = new long[capacity];
        known = new boolean[capacity];
        local = new boolean[capacity];
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
        return Objects.requireNonNull(policies[check(i)]);
    }

    /** State {@code i}'s key. */
    public String key(int i) {
        return Objects.requireNonNull(keys[check(i)]);
    }

    /** State {@code i}'s quota: {@link PolicyState#limit()}. */
    public long limit(int i) {
        return limits[check(i)];
    }

    /** {@link PolicyState#remaining()} of state {@code i}. */
    public long remaining(int i) {
        return remaining[check(i)];
    }

    /** {@link PolicyState#used()} of state {@code i}. */
    public long used(int i) {
        return limits[check(i)] - remaining[i];
    }

    /** {@link PolicyState#resetMicros()} of state {@code i}. */
    public long resetMicros(int i) {
        return resetMicros[check(i)];
    }

    /** {@link PolicyState#resetSeconds()} of state {@code i}. */
    public long resetSeconds(int i) {
        return Math.ceilDiv(resetMicros[check(i)], 1_000_000L);
    }

    /** {@link PolicyState#resetEpochSeconds()} of state {@code i}. */
    public long resetEpochSeconds(int i) {
        return Math.ceilDiv(nowMicros[check(i)] + resetMicros[i], 1_000_000L);
    }

    /** {@link PolicyState#retryAfterMicros()} of state {@code i}. */
    public long retryAfterMicros(int i) {
        return retryAfterMicros[check(i)];
    }

    /** {@link PolicyState#nowMicros()} of state {@code i}. */
    public long nowMicros(int i) {
        return nowMicros[check(i)];
    }

    /** {@link PolicyState#known()} of state {@code i}. */
    public boolean known(int i) {
        return known[check(i)];
    }

    /** {@link PolicyState#local()} of state {@code i}. */
    public boolean local(int i) {
        return local[check(i)];
    }

    /** Whether state {@code i} is a shadow policy's would-be refusal ({@link ShadowPolicies#wouldHaveRefused}). */
    public boolean wouldHaveRefused(int i) {
        return policy(i).shadow() && retryAfterMicros[i] > 0;
    }

    /** State {@code i} as a {@link PolicyState} (allocates). */
    public PolicyState state(int i) {
        return new PolicyState(
                policy(i),
                key(i),
                limits[i],
                remaining[i],
                resetMicros[i],
                retryAfterMicros[i],
                nowMicros[i],
                known[i],
                local[i]);
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
        for (int i = 0; i < size; i++) {
            Policy policy = Objects.requireNonNull(policies[i]);
            if (!known[i] || policy.shadow()) {
                continue;
            }
            if (closest < 0 || (double) remaining[i] / limits[i] < (double) remaining[closest] / limits[closest]) {
                closest = i;
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
        Arrays.fill(policies, 0, size, null);
        Arrays.fill(keys, 0, size, null);
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
        clear();
        if (n > policies.length) {
            int capacity = Math.max(n, 2 * policies.length);
            policies = Arrays.copyOf(policies, capacity);
            keys = Arrays.copyOf(keys, capacity);
            limits = Arrays.copyOf(limits, capacity);
            remaining = Arrays.copyOf(remaining, capacity);
            resetMicros = Arrays.copyOf(resetMicros, capacity);
            retryAfterMicros = Arrays.copyOf(retryAfterMicros, capacity);
            nowMicros = Arrays.copyOf(nowMicros, capacity);
            known = Arrays.copyOf(known, capacity);
            local = Arrays.copyOf(local, capacity);
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
        this.policies[i] = policy;
        this.keys[i] = key;
        this.limits[i] = limit;
        this.remaining[i] = remaining;
        this.resetMicros[i] = resetMicros;
        this.retryAfterMicros[i] = retryAfterMicros;
        this.nowMicros[i] = nowMicros;
        this.known[i] = known;
        this.local[i] = local;
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
            if (Objects.requireNonNull(policies[i]).shadow()) {
                if (i < refusedBy) {
                    refused--;
                }
                continue;
            }
            if (kept != i) {
                set(
                        kept,
                        Objects.requireNonNull(policies[i]),
                        Objects.requireNonNull(keys[i]),
                        limits[i],
                        remaining[i],
                        resetMicros[i],
                        retryAfterMicros[i],
                        nowMicros[i],
                        known[i],
                        local[i]);
            }
            kept++;
        }
        Arrays.fill(policies, kept, size, null);
        Arrays.fill(keys, kept, size, null);
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
