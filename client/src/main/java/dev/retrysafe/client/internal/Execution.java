package dev.retrysafe.client.internal;

import dev.retrysafe.client.Attempt;
import dev.retrysafe.client.CallResult;
import dev.retrysafe.client.Decision;
import dev.retrysafe.client.FailureKind;
import dev.retrysafe.client.RetryBudget;
import dev.retrysafe.client.RetryFailedException;
import dev.retrysafe.client.RetryPolicy;
import dev.retrysafe.client.RetryReason;
import dev.retrysafe.client.StopReason;
import dev.retrysafe.client.WaitTooLongException;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.OptionalInt;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;
import org.jspecify.annotations.Nullable;

/**
 * The state of one call across its attempts (after Failsafe's {@code Execution}): the key, the
 * deadline, the attempts so far, and the decision after each one. The decisions read the policy,
 * the budget, the pacer and the clock, and never wait themselves; the client does the waiting. Used
 * by one call at a time (the asynchronous loop hands it from one completion to the next).
 */
public final class Execution {

    /** The request header that makes a {@code POST} safe to repeat. */
    public static final String IDEMPOTENCY_KEY = "Idempotency-Key";
    /** The answer header of a server that replayed a stored answer. */
    static final String REPLAYED = "Idempotent-Replayed";
    /** The least time an attempt gets: a wait must leave this much before the deadline. */
    static final Duration MIN_ATTEMPT = Duration.ofMillis(1);

    private final HttpRequest request;
    private final RetryPolicy policy;
    private final RetryBudget budget;
    private final Pacer pacer;
    private final Clock clock;
    private final RandomGenerator random;
    private final String method;
    private final URI uri;
    private final @Nullable String key;
    private final boolean keyGenerated;
    private final Instant start;
    private final Instant deadline;
    private final List<Attempt> attempts = new ArrayList<>();
    private int retries;
    private Duration pacingWait = Duration.ZERO;
    private Instant sentAt;
    private @Nullable WaitTooLongException refusal;

    /**
     * A new call of {@code request}: takes its key, or generates one when the method needs it,
     * and records the call in the budget.
     */
    public Execution(
            HttpRequest request,
            RetryPolicy policy,
            RetryBudget budget,
            Pacer pacer,
            Clock clock,
            RandomGenerator random,
            Supplier<String> keys) {
        this.request = request;
        this.policy = policy;
        this.budget = budget;
        this.pacer = pacer;
        this.clock = clock;
        this.random = random;
        this.method = request.method().toUpperCase(Locale.ROOT);
        this.uri = request.uri();
        String given = request.headers().firstValue(IDEMPOTENCY_KEY).orElse(null);
        if (given == null && policy.generateIdempotencyKeys() && RetryRules.needsIdempotencyKey(method)) {
            String generated = keys.get();
            if (generated == null || generated.isBlank()) {
                throw new IllegalStateException("the idempotency key generator returned no key");
            }
            this.key = generated;
            this.keyGenerated = true;
        } else {
            this.key = given;
            this.keyGenerated = false;
        }
        this.start = clock.instant();
        this.sentAt = start;
        this.deadline = start.plus(policy.deadline());
        budget.recordCall();
    }

    /** The call's {@code Idempotency-Key}, or {@code null}. */
    public @Nullable String idempotencyKey() {
        return key;
    }

    /**
     * How long to wait before the next attempt because the host's rate limit is exhausted: the
     * reset plus a little jitter (at most the base delay), so that the requests that waited do not
     * all arrive in the same instant.
     *
     * @throws WaitTooLongException when the reset lies beyond the policy's limits
     */
    public Duration pacingWait() throws WaitTooLongException {
        pacingWait = Duration.ZERO;
        if (!policy.pacing()) {
            return pacingWait;
        }
        Instant now = clock.instant();
        Duration reset = pacer.waitFor(uri, now);
        if (reset.isZero()) {
            return pacingWait;
        }
        Duration remaining = usable(now);
        if (reset.compareTo(policy.maxRetryAfter()) > 0) {
            throw refuse(
                    reset,
                    policy.maxRetryAfter(),
                    WaitTooLongException.Source.RATE_LIMIT_RESET,
                    WaitTooLongException.Limit.MAX_RETRY_AFTER,
                    OptionalInt.empty());
        }
        if (reset.compareTo(remaining) >= 0) {
            throw refuse(
                    reset,
                    remaining,
                    WaitTooLongException.Source.RATE_LIMIT_RESET,
                    WaitTooLongException.Limit.DEADLINE,
                    OptionalInt.empty());
        }
        long room = RetryRules.saturatedNanos(remaining.minus(reset)) / 2;
        long jitter = RetryRules.uniform(random, Math.min(policy.baseDelay().toNanos(), room));
        pacingWait = reset.plusNanos(jitter);
        return pacingWait;
    }

    /** The request of the next attempt: the key added, the timeout cut to the deadline. */
    public HttpRequest nextRequest() {
        Instant now = clock.instant();
        sentAt = now;
        HttpRequest.Builder b = HttpRequest.newBuilder(request, (name, value) -> true);
        if (keyGenerated) {
            b.setHeader(IDEMPOTENCY_KEY, key);
        }
        Duration timeout = policy.attemptTimeout() != null
                ? policy.attemptTimeout()
                : request.timeout().orElse(policy.deadline());
        Duration remaining = remaining(now);
        if (remaining.compareTo(timeout) < 0) {
            // every wait leaves MIN_ATTEMPT before the deadline; on a real clock the wait itself
            // may overrun a little, and a timeout must be positive
            timeout = remaining.compareTo(MIN_ATTEMPT) < 0 ? MIN_ATTEMPT : remaining;
        }
        return b.timeout(timeout).build();
    }

    /** Decides what follows an answer. */
    public Decision onAnswer(HttpResponse<?> response) {
        Instant now = clock.instant();
        List<String> retryAfterValues = response.headers().allValues(RetryAfterHeader.NAME);
        Duration retryAfter = RetryAfterHeader.delay(retryAfterValues, now);
        if (policy.pacing() && retryAfter == null) {
            // the draft: when both are present, Retry-After wins
            pacer.observe(response.uri(), RateLimitHint.of(response.headers(), now), now);
        }
        int status = response.statusCode();
        boolean replayed = response.headers()
                .firstValue(REPLAYED)
                .map(v -> v.equalsIgnoreCase("true"))
                .orElse(false);
        Decision decision;
        if (!isRetryable(status, retryAfter != null, replayed)) {
            decision = new Decision.Stop(StopReason.ANSWERED);
        } else if (!RetryRules.mayRetry(method, key != null)) {
            decision = new Decision.Stop(StopReason.UNSAFE_METHOD);
        } else {
            decision = retryOrStop(new RetryReason.Status(status, retryAfter), retryAfter, OptionalInt.of(status), now);
        }
        record(
                OptionalInt.of(status),
                null,
                retryAfterValues.isEmpty() ? null : String.join(", ", retryAfterValues),
                now,
                decision);
        return decision;
    }

    /** Decides what follows a failure. */
    public Decision onFailure(IOException failure) {
        Instant now = clock.instant();
        FailureKind kind = Failures.transientKind(failure);
        Decision decision;
        if (kind == null) {
            decision = new Decision.Stop(StopReason.NOT_TRANSIENT);
        } else if (!RetryRules.mayRetry(method, key != null)) {
            decision = new Decision.Stop(StopReason.UNSAFE_METHOD);
        } else {
            String message = failure.getMessage() == null ? "" : failure.getMessage();
            decision = retryOrStop(new RetryReason.Failure(kind, message), null, OptionalInt.empty(), now);
        }
        record(OptionalInt.empty(), failure, null, now, decision);
        return decision;
    }

    private boolean isRetryable(int status, boolean hasRetryAfter, boolean replayed) {
        return policy.isRetryable(status)
                || (policy.retryKeyInUse() && RetryRules.isKeyInUse(status, key != null, hasRetryAfter, replayed));
    }

    private Decision retryOrStop(RetryReason reason, @Nullable Duration retryAfter, OptionalInt status, Instant now) {
        if (attempts.size() + 1 >= policy.maxAttempts()) {
            return new Decision.Stop(StopReason.ATTEMPTS_EXHAUSTED);
        }
        Duration remaining = usable(now);
        if (retryAfter != null && retryAfter.compareTo(policy.maxRetryAfter()) > 0) {
            refusal = refuse(
                    retryAfter,
                    policy.maxRetryAfter(),
                    WaitTooLongException.Source.RETRY_AFTER,
                    WaitTooLongException.Limit.MAX_RETRY_AFTER,
                    status);
            return new Decision.Stop(StopReason.WAIT_TOO_LONG);
        }
        if (retryAfter != null && retryAfter.compareTo(remaining) >= 0) {
            refusal = refuse(
                    retryAfter,
                    remaining,
                    WaitTooLongException.Source.RETRY_AFTER,
                    WaitTooLongException.Limit.DEADLINE,
                    status);
            return new Decision.Stop(StopReason.WAIT_TOO_LONG);
        }
        Duration wait = policy.waitBefore(retries, retryAfter, random);
        if (wait.compareTo(remaining) >= 0) {
            return new Decision.Stop(StopReason.DEADLINE_REACHED);
        }
        if (!budget.tryAcquireRetry()) {
            return new Decision.Stop(StopReason.BUDGET_EXHAUSTED);
        }
        retries++;
        return new Decision.Retry(wait, reason);
    }

    private WaitTooLongException refuse(
            Duration requested,
            Duration allowed,
            WaitTooLongException.Source source,
            WaitTooLongException.Limit limit,
            OptionalInt status) {
        // the attempts are filled in by refusal(), once the attempt that asked is recorded
        return new WaitTooLongException(
                requested, allowed.isNegative() ? Duration.ZERO : allowed, source, limit, status, attempts, key);
    }

    private void record(
            OptionalInt status,
            @Nullable IOException failure,
            @Nullable String retryAfter,
            Instant now,
            Decision decision) {
        Duration took = sentAt.isAfter(now) ? Duration.ZERO : Duration.between(sentAt, now);
        attempts.add(new Attempt(
                attempts.size() + 1, method, uri, key, pacingWait, status, failure, retryAfter, took, decision));
    }

    private Duration remaining(Instant now) {
        return Duration.between(now, deadline);
    }

    /** What a wait may take at {@code now}: the time to the deadline less {@link #MIN_ATTEMPT}. */
    private Duration usable(Instant now) {
        return remaining(now).minus(MIN_ATTEMPT);
    }

    /** The attempt decided last. */
    public Attempt lastAttempt() {
        return attempts.getLast();
    }

    /** The result of a call whose last attempt brought {@code response}. */
    public <T> CallResult<T> result(HttpResponse<T> response) {
        return new CallResult<>(response, attempts, key, elapsed());
    }

    /** The exception of a call that waited too long, after the attempt that asked for the wait. */
    public WaitTooLongException refusal() {
        WaitTooLongException r = refusal;
        if (r == null) {
            throw new IllegalStateException("no wait was refused");
        }
        return new WaitTooLongException(r.requested(), r.allowed(), r.source(), r.limit(), r.status(), attempts, key);
    }

    /** The exception of a call whose last attempt failed with {@code cause}. */
    public RetryFailedException failure(IOException cause) {
        StopReason reason = ((Decision.Stop) lastAttempt().decision()).reason();
        String message = method + " " + uri + " failed after " + attempts.size()
                + (attempts.size() == 1 ? " attempt" : " attempts") + " (" + describe(reason) + "): " + cause;
        return new RetryFailedException(message, cause, attempts, reason, key);
    }

    private static String describe(StopReason reason) {
        return switch (reason) {
            case NOT_TRANSIENT -> "not a transient failure";
            case UNSAFE_METHOD -> "not safe to retry without an Idempotency-Key";
            case ATTEMPTS_EXHAUSTED -> "no attempts left";
            case BUDGET_EXHAUSTED -> "retry budget exhausted";
            case DEADLINE_REACHED -> "deadline reached";
            case WAIT_TOO_LONG -> "wait too long";
            case ANSWERED -> "answered";
        };
    }

    private Duration elapsed() {
        Instant now = clock.instant();
        return now.isBefore(start) ? Duration.ZERO : Duration.between(start, now);
    }
}
