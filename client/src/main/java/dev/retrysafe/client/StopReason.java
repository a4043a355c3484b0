package dev.retrysafe.client;

/** Why a call made no further attempt. */
public enum StopReason {
    /** The answer is final: its status is not retryable (a success, or an error that would repeat). */
    ANSWERED,
    /** The attempt failed in a way that would fail again (an unknown host, a TLS certificate, a protocol error). */
    NOT_TRANSIENT,
    /**
     * A retry would not be safe: the method is not idempotent ({@code POST} or {@code PATCH}
     * without an {@code Idempotency-Key}, or a method outside the known ones).
     */
    UNSAFE_METHOD,
    /** The policy's {@link RetryPolicy#maxAttempts() maximum number of attempts} was made. */
    ATTEMPTS_EXHAUSTED,
    /** The client's {@link RetryBudget} had no retry left: a wide outage is not made worse. */
    BUDGET_EXHAUSTED,
    /** The next wait would end at or after the call's {@link RetryPolicy#deadline() deadline}. */
    DEADLINE_REACHED,
    /**
     * The server asked for a wait ({@code Retry-After}, or a rate limit's reset) longer than
     * {@link RetryPolicy#maxRetryAfter()} or than what is left before the deadline; the call
     * ends with a {@link WaitTooLongException} instead of sleeping.
     */
    WAIT_TOO_LONG
}
