package dev.retrysafe.ratelimit.redis.internal;

import java.lang.System.Logger.Level;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Keeps calls away from a Redis that is not answering, so that an outage costs requests no
 * latency. Closed, it lets every call through and counts consecutive failures; after
 * {@code failuresToOpen} of them it opens for {@code openFor}, refusing calls without trying
 * them. Then it lets exactly one probe through (half-open): success closes it, failure opens it
 * again. A probe that never reports back (its thread died) is given up after {@code openFor}.
 * Threadsafe and lock-free: the state is one immutable value swapped atomically.
 */
public final class CircuitBreaker {

    private static final System.Logger LOG = System.getLogger(CircuitBreaker.class.getName());

    private sealed interface State permits Closed, Open, HalfOpen {}

    private record Closed(int failures) implements State {}

    private record Open(Instant until) implements State {}

    private record HalfOpen(Instant probeSentAt) implements State {}

    private static final Closed HEALTHY = new Closed(0);

    private final int failuresToOpen;
    private final Duration openFor;
    private final Clock clock;
    private final AtomicReference<State> state = new AtomicReference<>(HEALTHY);

    /**
     * A closed breaker.
     *
     * @param failuresToOpen consecutive failures that open it, at least 1
     * @param openFor        how long it stays open before a probe, positive
     * @param clock          measures {@code openFor}
     */
    public CircuitBreaker(int failuresToOpen, Duration openFor, Clock clock) {
        if (failuresToOpen < 1) {
            throw new IllegalArgumentException("failuresToOpen must be at least 1: " + failuresToOpen);
        }
        if (openFor.isNegative() || openFor.isZero()) {
            throw new IllegalArgumentException("openFor must be positive: " + openFor);
        }
        this.failuresToOpen = failuresToOpen;
        this.openFor = openFor;
        this.clock = clock;
    }

    /**
     * Whether a call may go to Redis now. When the cool-down is over this claims the one probe;
     * a caller that gets {@code true} must report {@link #onSuccess} or {@link #onFailure}.
     */
    public boolean tryAcquire() {
        while (true) {
            State current = state.get();
            if (current instanceof Closed) {
                return true; // the common case reads no clock
            }
            Instant now = clock.instant();
            switch (current) {
                case Closed closed -> {
                    return true;
                }
                case Open open -> {
                    if (now.isBefore(open.until())) {
                        return false;
                    }
                    if (state.compareAndSet(current, new HalfOpen(now))) {
                        return true;
                    }
                }
                case HalfOpen probe -> {
                    if (now.isBefore(probe.probeSentAt().plus(openFor))) {
                        return false;
                    }
                    if (state.compareAndSet(current, new HalfOpen(now))) {
                        return true;
                    }
                }
            }
        }
    }

    /** Redis answered: the breaker closes and forgets earlier failures. */
    public void onSuccess() {
        if (state.get() == HEALTHY) {
            return; // nothing to reset: a read, where a write from every caller would contend
        }
        State previous = state.getAndSet(HEALTHY);
        if (!(previous instanceof Closed)) {
            LOG.log(Level.INFO, "Redis answers again: rate limits are enforced again");
        }
    }

    /** Redis did not answer (timeout, refused connection, disconnect). */
    public void onFailure() {
        while (true) {
            State current = state.get();
            State next;
            if (current instanceof Closed closed && closed.failures() + 1 < failuresToOpen) {
                next = new Closed(closed.failures() + 1);
            } else if (current instanceof Open) {
                return; // a call that started before the breaker opened; it is open already
            } else {
                next = new Open(clock.instant().plus(openFor));
            }
            if (state.compareAndSet(current, next)) {
                if (next instanceof Open) {
                    LOG.log(Level.WARNING, "Redis is not answering: rate-limit store circuit open for {0}", openFor);
                }
                return;
            }
        }
    }

    /** How long until a call may go through again: zero when closed, at least the rest of the cool-down when open. */
    public Duration remainingOpen() {
        return switch (state.get()) {
            case Closed closed -> Duration.ZERO;
            case Open open -> positive(Duration.between(clock.instant(), open.until()));
            case HalfOpen probe ->
                positive(Duration.between(clock.instant(), probe.probeSentAt().plus(openFor)));
        };
    }

    /** Whether calls are being kept away from Redis (open, or half-open with a probe out). */
    public boolean isOpen() {
        return !(state.get() instanceof Closed);
    }

    private static Duration positive(Duration d) {
        return d.isNegative() ? Duration.ZERO : d;
    }
}
