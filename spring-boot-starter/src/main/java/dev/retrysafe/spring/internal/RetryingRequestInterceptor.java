package dev.retrysafe.spring.internal;

import dev.retrysafe.client.RetryBudget;
import dev.retrysafe.client.RetryPolicy;
import dev.retrysafe.client.Sleeper;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.Objects;
import java.util.UUID;
import java.util.random.RandomGenerator;
import org.jspecify.annotations.Nullable;
import org.springframework.http.HttpRequest;
import org.springframework.http.client.ClientHttpRequestExecution;
import org.springframework.http.client.ClientHttpRequestInterceptor;
import org.springframework.http.client.ClientHttpResponse;

/**
 * Retries a {@code RestClient}'s requests the way {@code retrysafe-client} does, with its
 * {@link RetryPolicy} and {@link RetryBudget}: {@code POST} and {@code PATCH} get an
 * {@code Idempotency-Key} (a random UUID, the same on every attempt) unless they carry one or key
 * generation is off; only what {@link RetryPolicy#mayRetry} allows is retried (a {@code POST}
 * without a key never); retryable statuses and transient I/O failures are retried with the
 * policy's full-jitter backoff, never sooner than {@code Retry-After} (read by
 * {@link RetryPolicy#retryAfter}); a {@code Retry-After} beyond {@code maxRetryAfter}, a wait
 * reaching the deadline, the last attempt or an empty budget ends the retries and hands the last
 * answer (or failure) to the caller. Threadsafe.
 */
public final class RetryingRequestInterceptor implements ClientHttpRequestInterceptor {

    /** The header carrying the key. */
    public static final String IDEMPOTENCY_KEY = "Idempotency-Key";

    private static final int KEY_IN_USE = 409;

    private final RetryPolicy policy;
    private final RetryBudget budget;
    private final Sleeper sleeper;
    private final Clock clock;
    private final RandomGenerator random;

    /** An interceptor with {@code policy}, sharing {@code budget} over every request it sees. */
    public RetryingRequestInterceptor(
            RetryPolicy policy, RetryBudget budget, Sleeper sleeper, Clock clock, RandomGenerator random) {
        this.policy = Objects.requireNonNull(policy, "policy");
        this.budget = Objects.requireNonNull(budget, "budget");
        this.sleeper = Objects.requireNonNull(sleeper, "sleeper");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.random = Objects.requireNonNull(random, "random");
    }

    @Override
    public ClientHttpResponse intercept(HttpRequest request, byte[] body, ClientHttpRequestExecution execution)
            throws IOException {
        String method = request.getMethod().name().toUpperCase(Locale.ROOT);
        String key = request.getHeaders().getFirst(IDEMPOTENCY_KEY);
        if (key == null && policy.generateIdempotencyKeys() && (method.equals("POST") || method.equals("PATCH"))) {
            key = UUID.randomUUID().toString();
            request.getHeaders().set(IDEMPOTENCY_KEY, key);
        }
        boolean keyed = key != null;
        budget.recordCall();
        if (!RetryPolicy.mayRetry(method, keyed)) {
            return execution.execute(request, body);
        }
        Instant deadline = clock.instant().plus(policy.deadline());
        for (int attempt = 1; ; attempt++) {
            ClientHttpResponse response;
            try {
                response = execution.execute(request, body);
            } catch (IOException failure) {
                if (failure instanceof InterruptedIOException
                        && Thread.currentThread().isInterrupted()) {
                    throw failure;
                }
                if (RetryPolicy.transientFailure(failure) == null) {
                    throw failure;
                }
                Duration wait = policy.waitBefore(attempt - 1, null, random);
                if (!mayTryAgain(attempt, wait, deadline)) {
                    throw failure;
                }
                pause(wait, failure);
                continue;
            }
            int status = response.getStatusCode().value();
            @Nullable
            Duration retryAfter =
                    RetryPolicy.retryAfter(response.getHeaders().getOrEmpty("Retry-After"), clock.instant());
            if (!retryable(status, keyed, retryAfter)
                    || (retryAfter != null && retryAfter.compareTo(policy.maxRetryAfter()) > 0)) {
                return response;
            }
            Duration wait = policy.waitBefore(attempt - 1, retryAfter, random);
            if (!mayTryAgain(attempt, wait, deadline)) {
                return response;
            }
            response.close();
            pause(wait, null);
        }
    }

    private boolean retryable(int status, boolean keyed, @Nullable Duration retryAfter) {
        return policy.isRetryable(status)
                || (status == KEY_IN_USE && keyed && retryAfter != null && policy.retryKeyInUse());
    }

    /** Another attempt fits: attempts left, the wait ends before the deadline, and the budget pays. */
    private boolean mayTryAgain(int attemptsMade, Duration wait, Instant deadline) {
        return attemptsMade < policy.maxAttempts()
                && clock.instant().plus(wait).isBefore(deadline)
                && budget.tryAcquireRetry();
    }

    private void pause(Duration wait, @Nullable IOException cause) throws IOException {
        try {
            sleeper.sleep(wait);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            InterruptedIOException interrupted = new InterruptedIOException("interrupted while waiting to retry");
            if (cause != null) {
                interrupted.addSuppressed(cause);
            }
            throw interrupted;
        }
    }
}
