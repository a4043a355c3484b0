package dev.retrysafe.ratelimit;

import dev.retrysafe.ratelimit.internal.BufferedDecision;
import dev.retrysafe.ratelimit.internal.InMemoryEngine;
import dev.retrysafe.ratelimit.internal.KeyTable;
import dev.retrysafe.ratelimit.internal.MicrosClock;
import java.time.Clock;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;

/**
 * A {@link RateLimitStore} in this process's heap: exact, fast and bounded, for a single
 * instance (several instances each count on their own; use the Redis store to share limits).
 *
 * <p>Memory: a tracked key costs a slot of 8 bytes (key reference and hash) plus 8 per long of
 * state in primitive arrays, at 1.33 to 2 slots per key: measured 29 bytes per key for GCRA, 43
 * for token bucket and fixed window, 57 for sliding window (at most 32, 48 and 64), plus the key
 * string itself. A key whose state equals an absent key's (GCRA: its theoretical arrival time has
 * passed; a full bucket; windows without counts) is dropped without loss, in place, when its
 * stripe of the table is full and would otherwise grow, or at once when a {@link #refund} brings
 * it back there; tables never shrink below their high-water mark, which {@code maxKeys} bounds.
 *
 * <p>At most {@code maxKeys} keys are tracked. When a new key does not fit and no idle key can
 * be dropped (at most one full sweep per second), the new key is treated like an unreachable
 * store: a fail-open policy lets the request through uncounted (its state is
 * {@linkplain PolicyState#known() unknown}), a fail-closed one answers
 * {@link Decision.Unavailable} with {@code Retry-After: 1}; a {@linkplain FailMode#LOCAL local}
 * one, already in this process, acts as fail-open, and so does a shadow policy. Keys already tracked are never
 * evicted while active, because forgetting one would hand its client a fresh budget.
 *
 * <p>Time is microseconds since the epoch from the clock. The system clock is read at
 * millisecond resolution from a field that one daemon thread per JVM refreshes every millisecond
 * (so a decision neither allocates nor pays for a clock read); the time seen lags the system
 * clock by up to a tick, never leads it, and the thread stops by itself about a second after the
 * last read. Any other clock is read directly. This class is threadsafe.
 */
public final class InMemoryRateLimitStore implements RateLimitStore {

    private final InMemoryEngine engine;
    /** The engine's decision, made once: a method reference made per call would allocate. */
    private final Function<List<Charge>, Decision> step;

    private InMemoryRateLimitStore(Builder builder) {
        this.engine = new InMemoryEngine(new MicrosClock(builder.clock), builder.maxKeys);
        this.step = engine::decide;
    }

    /** A builder: the system clock, at most {@value Builder#DEFAULT_MAX_KEYS} keys. */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Ignores {@code partition}: a counter is identified by its policy and key alone. Shadow
     * policies are decided after the enforced ones, as {@link ShadowPolicies} describes.
     */
    @Override
    public Decision decide(String partition, List<Charge> charges) {
        Objects.requireNonNull(partition, "partition");
        return ShadowPolicies.decide(charges, step);
    }

    /**
     * As {@link #decide(String, List)}, into {@code into}: allocates nothing once the buffer has
     * held as many states (the buffer keeps this store's working memory between decisions), and
     * nothing for the key unless it is new to its table.
     */
    @Override
    public void decide(String partition, List<Charge> charges, DecisionBuffer into) {
        Objects.requireNonNull(partition, "partition");
        BufferedDecision.Scratch scratch;
        if (into.storeScratch instanceof BufferedDecision.Scratch mine) {
            scratch = mine;
        } else {
            scratch = new BufferedDecision.Scratch();
            into.storeScratch = scratch;
        }
        BufferedDecision.decide(engine, charges, into, scratch);
    }

    /** Ignores {@code partition}: a counter is identified by its policy and key alone. */
    @Override
    public Decision peek(String partition, List<Charge> charges) {
        Objects.requireNonNull(partition, "partition");
        return engine.peek(charges);
    }

    /** Ignores {@code partition}: a counter is identified by its policy and key alone. */
    @Override
    public Decision refund(String partition, List<Charge> charges) {
        Objects.requireNonNull(partition, "partition");
        return engine.refund(charges);
    }

    /**
     * The allocation-free limiter of {@code policy}, sharing its counters with {@link #decide}
     * for the same policy. Cheap to call, but hold on to the result on a hot path.
     */
    public LocalRateLimiter limiter(Policy policy) {
        return new Limiter(engine, engine.table(policy));
    }

    /** Keys tracked now, over every policy. */
    public long trackedKeys() {
        return engine.trackedKeys();
    }

    /**
     * Bytes held by the counter tables (key strings excluded, compressed references assumed):
     * for capacity planning and the memory tests.
     */
    public long stateBytes() {
        return engine.footprintBytes();
    }

    /**
     * Nothing to release: the counters are garbage once the store is, and the clock thread is
     * shared by the JVM and stops by itself once nothing reads it.
     */
    @Override
    public void close() {
        // no connections; no thread of this store's own
    }

    /** Builds an {@link InMemoryRateLimitStore}. Not threadsafe. */
    public static final class Builder {
        /** The default bound on tracked keys. */
        public static final long DEFAULT_MAX_KEYS = 1_000_000;

        private Clock clock = Clock.systemUTC();
        private long maxKeys = DEFAULT_MAX_KEYS;

        private Builder() {}

        /** The wall clock the store reads "now" from; the system UTC clock by default. */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /** The most keys tracked at once, over every policy; at least 1. */
        public Builder maxKeys(long maxKeys) {
            if (maxKeys < 1) {
                throw new IllegalArgumentException("maxKeys must be at least 1: " + maxKeys);
            }
            this.maxKeys = maxKeys;
            return this;
        }

        public InMemoryRateLimitStore build() {
            return new InMemoryRateLimitStore(this);
        }
    }

    /** The {@link LocalRateLimiter} over one table. */
    private record Limiter(InMemoryEngine engine, KeyTable table) implements LocalRateLimiter {

        @Override
        public Policy policy() {
            return table.policy();
        }

        @Override
        public boolean tryAcquire(String key, long cost) {
            return engine.tryAcquire(table, key, cost, engine.nowMicros()) == 0;
        }

        @Override
        public long tryAcquireOrWaitMicros(String key, long cost) {
            return engine.tryAcquire(table, key, cost, engine.nowMicros());
        }

        @Override
        public long tryAcquireOrWaitMicros(String key, long cost, long nowMicros) {
            return engine.tryAcquire(table, key, cost, nowMicros);
        }

        @Override
        public long nowMicros() {
            return engine.nowMicros();
        }
    }
}
