/**
 * The retrying client, its policy and its outcomes.
 *
 * <p>{@link dev.retrysafe.client.RetryingHttpClient} wraps a {@link java.net.http.HttpClient}
 * (synchronous and asynchronous calls) and retries what is safe to retry: the idempotent methods
 * always, {@code POST} and {@code PATCH} only with an {@code Idempotency-Key} (generated once per
 * call unless the caller sent one). It retries transient failures and the statuses of a
 * {@link dev.retrysafe.client.RetryPolicy}, waits with full jitter, never sooner than a
 * {@code Retry-After}, spends a per-client {@link dev.retrysafe.client.RetryBudget}, and paces
 * requests to a host whose rate limit is exhausted. Every attempt is reported to
 * {@link dev.retrysafe.client.AttemptListener}s and kept in the
 * {@link dev.retrysafe.client.CallResult}. Time passes through an injected
 * {@link java.time.Clock} and {@link dev.retrysafe.client.Sleeper}, randomness through an injected
 * {@link java.util.random.RandomGenerator}, so that every behaviour is testable without waiting.
 */
@NullMarked
package dev.retrysafe.client;

import org.jspecify.annotations.NullMarked;
