package dev.retrysafe.client;

import dev.retrysafe.client.internal.Failures;
import dev.retrysafe.client.internal.RetryAfterHeader;
import dev.retrysafe.client.internal.RetryRules;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.random.RandomGenerator;
import org.jspecify.annotations.Nullable;

/**
 * When and how long a {@link RetryingHttpClient} retries. Immutable; build one with
 * {@link #builder()} or change a copy with {@link #toBuilder()}. Every value is checked when the
 * policy is built. Immutable and threadsafe.
 *
 * <h2>What is retried</h2>
 * <ul>
 *   <li>Methods: {@code GET}, {@code HEAD}, {@code PUT}, {@code DELETE}, {@code OPTIONS} always;
 *       {@code POST} and {@code PATCH} only with an {@code Idempotency-Key}, which the client
 *       generates (a random UUID, once per call, the same on every attempt) unless the request
 *       carries one or {@link #generateIdempotencyKeys()} is off. Other methods never.</li>
 *   <li>Failures: connect failures, timeouts and broken connections ({@link FailureKind}); not an
 *       unknown host, a TLS certificate problem or a protocol error, which would fail again.</li>
 *   <li>Statuses: {@link #retryableStatuses()} (default {@code 408, 429, 500, 502, 503, 504});
 *       and, with {@link #retryKeyInUse()}, a {@code 409} with {@code Retry-After} to a request
 *       carrying an {@code Idempotency-Key}, which is how a server says that the first attempt of
 *       this very request is still running (draft-ietf-httpapi-idempotency-key-header).</li>
 * </ul>
 *
 * <h2>How long it waits</h2>
 * Retry number {@code n} (0 for the first retry) waits {@link #waitBefore}: full jitter,
 * {@code random(0, min(maxDelay, baseDelay * 2^n))}, or with a {@code Retry-After} of {@code r}:
 * {@code r + random(0, min(maxDelay, max(baseDelay * 2^n, retryAfterSpread * r)))}, never sooner
 * than asked, and spread over about one more {@code r} so that the clients a server refused
 * together do not all come back in the same instant.
 *
 * <h2>{@code Retry-After}</h2>
 * <table>
 *   <caption>How a {@code Retry-After} value is read</caption>
 *   <tr><th>value</th><th>read as</th></tr>
 *   <tr><td>{@code 120}</td><td>120 s</td></tr>
 *   <tr><td>an HTTP-date in the future (IMF-fixdate, RFC 850 or asctime)</td><td>that date minus the clock's now</td></tr>
 *   <tr><td>{@code 0}, or an HTTP-date now or in the past</td><td>0: no floor, the backoff alone</td></tr>
 *   <tr><td>negative ({@code -5}), malformed ({@code soon}, {@code 1.5}, {@code 1e3}, empty)</td>
 *       <td>ignored: the backoff alone, as if it were absent</td></tr>
 *   <tr><td>huge ({@code 99999999999999999999}, a date in the year 9999)</td>
 *       <td>a very long wait, never an overflow: beyond {@link #maxRetryAfter()} it fails the call
 *       with a {@link WaitTooLongException}</td></tr>
 *   <tr><td>several values</td><td>the longest readable one</td></tr>
 *   <tr><td>on a status that is not retried</td><td>ignored</td></tr>
 * </table>
 * A {@code Retry-After} longer than {@link #maxRetryAfter()}, or reaching the call's
 * {@link #deadline()}, fails the call at once with a {@link WaitTooLongException}.
 *
 * <h2>Deadline</h2>
 * Every attempt's timeout is cut to what is left of the deadline, and a retry whose wait would end
 * at or after the deadline is not made ({@link StopReason#DEADLINE_REACHED}).
 *
 * @param maxAttempts attempts per call, first included: 1 (no retry) to 100; default 5
 * @param baseDelay {@code base} of the backoff: positive, at most {@code maxDelay}; default 100 ms
 * @param maxDelay {@code cap} of the backoff and of the extra spread after a {@code Retry-After}:
 *     at most 1 hour; default 20 s
 * @param deadline the longest a call may take, waits included: positive, at most 24 hours;
 *     default 30 s
 * @param maxRetryAfter the longest {@code Retry-After} (or rate-limit reset) the client waits for:
 *     0 to 24 hours; default 20 s
 * @param retryAfterSpread how much random spread follows a {@code Retry-After}, as a share of it:
 *     0 (the backoff's jitter alone) to 10; default 1
 * @param retryableStatuses the statuses retried (100..599); default 408, 429, 500, 502, 503, 504
 * @param retryKeyInUse whether a {@code 409} with {@code Retry-After} to a keyed request is
 *     retried; default true
 * @param generateIdempotencyKeys whether {@code POST} and {@code PATCH} without a key get a
 *     generated one (and are then retried); default true
 * @param attemptTimeout the timeout of each attempt, or {@code null} for the request's own
 *     (either way cut to what is left of the deadline); positive; default {@code null}
 * @param pacing whether an exhausted rate limit ({@code RateLimit} {@code r=0}, or
 *     {@code X-RateLimit-Remaining: 0}) makes the next request to that host wait for the reset;
 *     default true
 */
public record RetryPolicy(
        int maxAttempts,
        Duration baseDelay,
        Duration maxDelay,
        Duration deadline,
        Duration maxRetryAfter,
        double retryAfterSpread,
        Set<Integer> retryableStatuses,
        boolean retryKeyInUse,
        boolean generateIdempotencyKeys,
        @Nullable Duration attemptTimeout,
        boolean pacing) {

    /** Most attempts a policy allows. */
    public static final int MAX_ATTEMPTS = 100;
    /** Largest {@link #maxDelay()}. */
    public static final Duration MAX_DELAY = Duration.ofHours(1);
    /** Largest {@link #deadline()} and {@link #maxRetryAfter()}. */
    public static final Duration MAX_DEADLINE = Duration.ofHours(24);
    /** Largest {@link #retryAfterSpread()}. */
    public static final double MAX_SPREAD = 10;
    /** The statuses retried unless configured otherwise. */
    public static final Set<Integer> DEFAULT_RETRYABLE_STATUSES = Set.of(408, 429, 500, 502, 503, 504);

    private static final RetryPolicy DEFAULTS = builder().build();

    /** Checks every value and copies the statuses. */
    public RetryPolicy {
        if (maxAttempts < 1 || maxAttempts > MAX_ATTEMPTS) {
            throw new IllegalArgumentException("maxAttempts must be 1.." + MAX_ATTEMPTS + ", was " + maxAttempts);
        }
        positive("baseDelay", baseDelay);
        positive("maxDelay", maxDelay);
        if (baseDelay.compareTo(maxDelay) > 0) {
            throw new IllegalArgumentException(
                    "baseDelay must be at most maxDelay (" + maxDelay + "), was " + baseDelay);
        }
        if (maxDelay.compareTo(MAX_DELAY) > 0) {
            throw new IllegalArgumentException("maxDelay must be at most " + MAX_DELAY + ", was " + maxDelay);
        }
        positive("deadline", deadline);
        if (deadline.compareTo(MAX_DEADLINE) > 0) {
            throw new IllegalArgumentException("deadline must be at most " + MAX_DEADLINE + ", was " + deadline);
        }
        Objects.requireNonNull(maxRetryAfter, "maxRetryAfter");
        if (maxRetryAfter.isNegative() || maxRetryAfter.compareTo(MAX_DEADLINE) > 0) {
            throw new IllegalArgumentException("maxRetryAfter must be 0.." + MAX_DEADLINE + ", was " + maxRetryAfter);
        }
        if (!(retryAfterSpread >= 0 && retryAfterSpread <= MAX_SPREAD)) {
            throw new IllegalArgumentException(
                    "retryAfterSpread must be 0.." + MAX_SPREAD + ", was " + retryAfterSpread);
        }
        TreeSet<Integer> statuses = new TreeSet<>();
        for (Integer status : Objects.requireNonNull(retryableStatuses, "retryableStatuses")) {
            if (status == null || status < 100 || status > 599) {
                throw new IllegalArgumentException("retryableStatuses must be 100..599, has " + status);
            }
            statuses.add(status);
        }
        retryableStatuses = Collections.unmodifiableSet(statuses);
        if (attemptTimeout != null) {
            positive("attemptTimeout", attemptTimeout);
        }
    }

    private static void positive(String name, Duration value) {
        Objects.requireNonNull(value, name);
        if (!value.isPositive()) {
            throw new IllegalArgumentException(name + " must be positive, was " + value);
        }
    }

    /** The defaults: see each component. */
    public static RetryPolicy defaults() {
        return DEFAULTS;
    }

    /** A builder starting from the defaults. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder starting from this policy, to change a few values for one request. */
    public Builder toBuilder() {
        return new Builder(this);
    }

    /**
     * Whether a request with {@code method} may be sent again: the idempotent methods always,
     * {@code POST} and {@code PATCH} only when they carry an {@code Idempotency-Key}.
     *
     * @param method the request method, in upper case
     * @param hasIdempotencyKey whether the request carries an {@code Idempotency-Key}
     * @return whether a retry is safe
     */
    public static boolean mayRetry(String method, boolean hasIdempotencyKey) {
        return RetryRules.mayRetry(method, hasIdempotencyKey);
    }

    /**
     * The wait that {@code Retry-After} values ask for, measured from {@code now}, read as the
     * table in the class description says (the longest readable value); {@code null} when there is
     * none or none can be read. For integrations that retry through another HTTP stack (the Spring
     * Boot starter's {@code RestClient} interceptor) and must read the header exactly as this client does.
     *
     * @param values the header's values, possibly none
     * @param now    the clock's now, for HTTP-dates
     * @return the delay, {@link Duration#ZERO} for a date now or in the past
     */
    public static @Nullable Duration retryAfter(List<String> values, Instant now) {
        return RetryAfterHeader.delay(List.copyOf(values), Objects.requireNonNull(now, "now"));
    }

    /**
     * The transient kind of an attempt's I/O failure (connect failure, timeout, broken connection),
     * or {@code null} when it would fail again (unknown host, TLS certificate, protocol error) and
     * is not retried; the client's own rule, for integrations on another HTTP stack.
     */
    public static @Nullable FailureKind transientFailure(IOException failure) {
        return Failures.transientKind(Objects.requireNonNull(failure, "failure"));
    }

    /** Whether an answer with {@code status} is retried (one of {@link #retryableStatuses()}). */
    public boolean isRetryable(int status) {
        return retryableStatuses.contains(status);
    }

    /**
     * The upper end of retry {@code retry}'s full jitter: {@code min(maxDelay, baseDelay * 2^retry)}.
     *
     * @param retry 0 for the first retry
     * @return the bound
     */
    public Duration backoffBound(int retry) {
        if (retry < 0) {
            throw new IllegalArgumentException("retry must not be negative, was " + retry);
        }
        return Duration.ofNanos(RetryRules.backoffBoundNanos(baseDelay.toNanos(), maxDelay.toNanos(), retry));
    }

    /**
     * How long to wait before retry {@code retry}: full jitter, or with a {@code Retry-After}
     * that floor plus a spread (see the class description). A pure function of its arguments.
     *
     * @param retry 0 for the first retry
     * @param retryAfter the server's {@code Retry-After}, or {@code null}
     * @param random the source of randomness
     * @return the wait, never less than {@code retryAfter}
     */
    public Duration waitBefore(int retry, @Nullable Duration retryAfter, RandomGenerator random) {
        long bound = backoffBound(retry).toNanos();
        if (retryAfter == null) {
            return Duration.ofNanos(RetryRules.uniform(random, bound));
        }
        if (retryAfter.isNegative()) {
            throw new IllegalArgumentException("retryAfter must not be negative, was " + retryAfter);
        }
        long window = RetryRules.spreadWindowNanos(bound, retryAfter, retryAfterSpread, maxDelay.toNanos());
        if (retryAfter.getSeconds() > Long.MAX_VALUE / 2) {
            return retryAfter; // centuries: the spread cannot be added, and the client refuses to wait anyway
        }
        return retryAfter.plusNanos(RetryRules.uniform(random, window));
    }

    /** Builds a {@link RetryPolicy}; starts from the defaults. Not threadsafe. */
    public static final class Builder {
        private int maxAttempts = 5;
        private Duration baseDelay = Duration.ofMillis(100);
        private Duration maxDelay = Duration.ofSeconds(20);
        private Duration deadline = Duration.ofSeconds(30);
        private Duration maxRetryAfter = Duration.ofSeconds(20);
        private double retryAfterSpread = 1;
        private Set<Integer> retryableStatuses = DEFAULT_RETRYABLE_STATUSES;
        private boolean retryKeyInUse = true;
        private boolean generateIdempotencyKeys = true;
        private @Nullable Duration attemptTimeout;
        private boolean pacing = true;

        private Builder() {}

        private Builder(RetryPolicy p) {
            maxAttempts = p.maxAttempts;
            baseDelay = p.baseDelay;
            maxDelay = p.maxDelay;
            deadline = p.deadline;
            maxRetryAfter = p.maxRetryAfter;
            retryAfterSpread = p.retryAfterSpread;
            retryableStatuses = p.retryableStatuses;
            retryKeyInUse = p.retryKeyInUse;
            generateIdempotencyKeys = p.generateIdempotencyKeys;
            attemptTimeout = p.attemptTimeout;
            pacing = p.pacing;
        }

        /** Attempts per call, the first included: 1..100 (default 5). */
        public Builder maxAttempts(int maxAttempts) {
            this.maxAttempts = maxAttempts;
            return this;
        }

        /** The backoff's {@code base} (default 100 ms). */
        public Builder baseDelay(Duration baseDelay) {
            this.baseDelay = baseDelay;
            return this;
        }

        /** The backoff's {@code cap} (default 20 s). */
        public Builder maxDelay(Duration maxDelay) {
            this.maxDelay = maxDelay;
            return this;
        }

        /** The longest a call may take, waits included (default 30 s). */
        public Builder deadline(Duration deadline) {
            this.deadline = deadline;
            return this;
        }

        /** The longest {@code Retry-After} or rate-limit reset waited for (default 20 s). */
        public Builder maxRetryAfter(Duration maxRetryAfter) {
            this.maxRetryAfter = maxRetryAfter;
            return this;
        }

        /** The random spread after a {@code Retry-After}, as a share of it: 0..10 (default 1). */
        public Builder retryAfterSpread(double retryAfterSpread) {
            this.retryAfterSpread = retryAfterSpread;
            return this;
        }

        /** The statuses retried (default 408, 429, 500, 502, 503, 504). */
        public Builder retryableStatuses(Set<Integer> retryableStatuses) {
            this.retryableStatuses = Set.copyOf(retryableStatuses);
            return this;
        }

        /** Whether a keyed request's {@code 409} with {@code Retry-After} is retried (default true). */
        public Builder retryKeyInUse(boolean retryKeyInUse) {
            this.retryKeyInUse = retryKeyInUse;
            return this;
        }

        /** Whether {@code POST} and {@code PATCH} without a key get a generated one (default true). */
        public Builder generateIdempotencyKeys(boolean generateIdempotencyKeys) {
            this.generateIdempotencyKeys = generateIdempotencyKeys;
            return this;
        }

        /** Each attempt's timeout, or {@code null} for the request's own (default {@code null}). */
        public Builder attemptTimeout(@Nullable Duration attemptTimeout) {
            this.attemptTimeout = attemptTimeout;
            return this;
        }

        /** Whether requests to a host with an exhausted rate limit wait for its reset (default true). */
        public Builder pacing(boolean pacing) {
            this.pacing = pacing;
            return this;
        }

        /**
         * The policy.
         *
         * @throws IllegalArgumentException naming the first value out of range
         */
        public RetryPolicy build() {
            return new RetryPolicy(
                    maxAttempts,
                    baseDelay,
                    maxDelay,
                    deadline,
                    maxRetryAfter,
                    retryAfterSpread,
                    retryableStatuses,
                    retryKeyInUse,
                    generateIdempotencyKeys,
                    attemptTimeout,
                    pacing);
        }
    }
}
