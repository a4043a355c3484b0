package dev.retrysafe.delivery;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.random.RandomGenerator;

/**
 * When the attempts of a delivery are due, and how a struggling receiver slows its endpoint down.
 * Pure: no clock, no state; randomness for jitter is passed in. Immutable and threadsafe.
 *
 * <p><b>Schedule.</b> {@code delays.get(i)} is the wait before attempt {@code i + 1}, counted
 * from the end of the attempt before it; the first is always zero (the outbox makes a delivery
 * due at its event's time). The default is the Standard Webhooks table: immediately, 5 s, 5 min,
 * 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h, then the delivery fails (about three days in all).
 * Each delay {@code d} is spread uniformly over {@code [d(1-jitter), d(1+jitter)]} so the retries
 * of many deliveries that failed together do not come back together.
 *
 * <p><b>{@code Retry-After}.</b> A receiver's {@code Retry-After} can postpone the next attempt,
 * never bring it forward, and postpone it by at most {@link #maxRetryAfter()} (default 1 hour):
 * next delay = max(scheduled, min(retryAfter, maxRetryAfter)). A receiver cannot make us retry
 * sooner than the schedule, nor park a delivery for days with a huge value (disabling is how we
 * stop for good).
 *
 * <p><b>Slow-down.</b> {@code 429}, {@code 502}, {@code 503}, {@code 504} and timeouts say the
 * receiver is overloaded, so the whole endpoint pauses: none of its due deliveries is claimed
 * for {@link #slowDownFor(AttemptResult)} (its {@code Retry-After}, bounded by
 * {@code maxRetryAfter}, or {@link #slowDown()}, default 10 s). Other endpoints are unaffected.
 *
 * @param delays        the wait before each attempt, first one zero; 1 to 100 entries
 * @param jitter        the spread of each delay, 0 (none) to 1
 * @param maxRetryAfter the most a receiver's {@code Retry-After} is honoured
 * @param slowDown      the pause of an overloaded endpoint that sent no {@code Retry-After}
 */
public record RetrySchedule(List<Duration> delays, double jitter, Duration maxRetryAfter, Duration slowDown) {

    /** The Standard Webhooks schedule. */
    public static final List<Duration> DEFAULT_DELAYS = List.of(
            Duration.ZERO,
            Duration.ofSeconds(5),
            Duration.ofMinutes(5),
            Duration.ofMinutes(30),
            Duration.ofHours(2),
            Duration.ofHours(5),
            Duration.ofHours(10),
            Duration.ofHours(14),
            Duration.ofHours(20),
            Duration.ofHours(24));
    /** Default jitter: each delay within 20 % either way. */
    public static final double DEFAULT_JITTER = 0.2;
    /** Default cap on a receiver's {@code Retry-After}. */
    public static final Duration DEFAULT_MAX_RETRY_AFTER = Duration.ofHours(1);
    /** Default pause of an overloaded endpoint without {@code Retry-After}. */
    public static final Duration DEFAULT_SLOW_DOWN = Duration.ofSeconds(10);
    /** Most delays a schedule holds. */
    public static final int MAX_DELAYS = 100;
    /** Largest jitter. */
    public static final double MAX_JITTER = 1.0;

    private static final Duration LONGEST_DELAY = Duration.ofDays(30);
    private static final Duration LONGEST_SLOW_DOWN = Duration.ofDays(1);

    /** Checks every value and copies the delays. */
    public RetrySchedule {
        Objects.requireNonNull(delays, "delays");
        if (delays.isEmpty() || delays.size() > MAX_DELAYS) {
            throw new IllegalArgumentException(
                    "delays must hold 1 to " + MAX_DELAYS + " entries, had " + delays.size());
        }
        for (int i = 0; i < delays.size(); i++) {
            Duration d = Objects.requireNonNull(delays.get(i), "delays[" + i + "]");
            if (d.isNegative() || d.compareTo(LONGEST_DELAY) > 0) {
                throw new IllegalArgumentException("delays[" + i + "] must be 0 to " + LONGEST_DELAY + ", was " + d);
            }
        }
        if (!delays.getFirst().isZero()) {
            throw new IllegalArgumentException(
                    "delays[0] must be zero (the first attempt is due at the event's time), was " + delays.getFirst());
        }
        delays = List.copyOf(delays);
        if (!(jitter >= 0 && jitter <= MAX_JITTER)) {
            throw new IllegalArgumentException("jitter must be 0 to " + MAX_JITTER + ", was " + jitter);
        }
        Objects.requireNonNull(maxRetryAfter, "maxRetryAfter");
        if (maxRetryAfter.isNegative() || maxRetryAfter.compareTo(LONGEST_DELAY) > 0) {
            throw new IllegalArgumentException(
                    "maxRetryAfter must be 0 to " + LONGEST_DELAY + ", was " + maxRetryAfter);
        }
        Objects.requireNonNull(slowDown, "slowDown");
        if (slowDown.isNegative() || slowDown.compareTo(LONGEST_SLOW_DOWN) > 0) {
            throw new IllegalArgumentException("slowDown must be 0 to " + LONGEST_SLOW_DOWN + ", was " + slowDown);
        }
    }

    /** The defaults: Standard Webhooks delays, jitter 0.2, {@code Retry-After} up to 1 h, slow-down 10 s. */
    public static RetrySchedule defaults() {
        return new RetrySchedule(DEFAULT_DELAYS, DEFAULT_JITTER, DEFAULT_MAX_RETRY_AFTER, DEFAULT_SLOW_DOWN);
    }

    /** A builder starting from {@link #defaults()}. */
    public static Builder builder() {
        return new Builder();
    }

    /** How many attempts a delivery gets before it fails. */
    public int maxAttempts() {
        return delays.size();
    }

    /**
     * The wait before the next attempt after {@code attemptsMade} attempts, jittered with
     * {@code random}; empty when the schedule is used up and the delivery fails.
     */
    public Optional<Duration> next(int attemptsMade, RandomGenerator random) {
        if (attemptsMade < 0) {
            throw new IllegalArgumentException("attemptsMade must not be negative: " + attemptsMade);
        }
        if (attemptsMade >= delays.size()) {
            return Optional.empty();
        }
        return Optional.of(jittered(delays.get(attemptsMade), random.nextDouble()));
    }

    /**
     * The wait before the next attempt after {@code attemptsMade} attempts, the last of which
     * failed with {@code result}: {@link #next} raised to the receiver's bounded
     * {@code Retry-After}. Empty when the schedule is used up.
     */
    public Optional<Duration> nextAfter(int attemptsMade, AttemptResult result, RandomGenerator random) {
        return next(attemptsMade, random).map(scheduled -> {
            Duration retryAfter = result.retryAfter();
            if (retryAfter == null || retryAfter.isNegative()) {
                return scheduled;
            }
            Duration bounded = min(retryAfter, maxRetryAfter);
            return bounded.compareTo(scheduled) > 0 ? bounded : scheduled;
        });
    }

    /**
     * How long the endpoint pauses after {@code result}; empty unless the receiver signalled
     * overload ({@code 429}, {@code 502}, {@code 503}, {@code 504}, or a timeout).
     */
    public Optional<Duration> slowDownFor(AttemptResult result) {
        if (!isOverloaded(result)) {
            return Optional.empty();
        }
        Duration retryAfter = result.retryAfter();
        return Optional.of(retryAfter == null || retryAfter.isNegative() ? slowDown : min(retryAfter, maxRetryAfter));
    }

    /** Whether the result says the receiver is overloaded. */
    public static boolean isOverloaded(AttemptResult result) {
        if (result.outcome() == AttemptResult.Outcome.TIMEOUT) {
            return true;
        }
        Integer status = result.status();
        return status != null && (status == 429 || status == 502 || status == 503 || status == 504);
    }

    /** Whether the receiver said the endpoint is gone for good ({@code 410}): disable it at once. */
    public static boolean isGone(AttemptResult result) {
        Integer status = result.status();
        return status != null && status == 410;
    }

    /** {@code delay} scaled by {@code 1 - jitter + 2 * jitter * uniform}, for {@code uniform} in [0, 1]. */
    Duration jittered(Duration delay, double uniform) {
        if (jitter == 0 || delay.isZero()) {
            return delay;
        }
        double factor = 1 - jitter + 2 * jitter * Math.min(1, Math.max(0, uniform));
        return Duration.ofMillis(Math.round(delay.toMillis() * factor));
    }

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }

    /** Builds a {@link RetrySchedule}, starting from the defaults. Not threadsafe. */
    public static final class Builder {
        private List<Duration> delays = DEFAULT_DELAYS;
        private double jitter = DEFAULT_JITTER;
        private Duration maxRetryAfter = DEFAULT_MAX_RETRY_AFTER;
        private Duration slowDown = DEFAULT_SLOW_DOWN;

        private Builder() {}

        /** The delays before each attempt, first one zero. */
        public Builder delays(List<Duration> delays) {
            this.delays = new ArrayList<>(delays);
            return this;
        }

        /** The delays before each attempt, first one zero. */
        public Builder delays(Duration... delays) {
            return delays(List.of(delays));
        }

        /** The spread of each delay (0 to 1). */
        public Builder jitter(double jitter) {
            this.jitter = jitter;
            return this;
        }

        /** The most a receiver's {@code Retry-After} is honoured. */
        public Builder maxRetryAfter(Duration maxRetryAfter) {
            this.maxRetryAfter = maxRetryAfter;
            return this;
        }

        /** The pause of an overloaded endpoint that sent no {@code Retry-After}. */
        public Builder slowDown(Duration slowDown) {
            this.slowDown = slowDown;
            return this;
        }

        /** The schedule; all values are checked here. */
        public RetrySchedule build() {
            return new RetrySchedule(delays, jitter, maxRetryAfter, slowDown);
        }
    }
}
