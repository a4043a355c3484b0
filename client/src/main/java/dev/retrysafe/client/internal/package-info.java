/**
 * Implementation of the retrying client: the per-call retry state, header parsing
 * ({@code Retry-After}, rate-limit fields), pacing and the retry budget. Exported to the typed SDK
 * and to webhook delivery alone, so that they read {@code Retry-After} (a job's, a receiver's)
 * with the client's own {@link dev.retrysafe.client.internal.RetryAfterHeader} instead of a copy.
 */
@NullMarked
package dev.retrysafe.client.internal;

import org.jspecify.annotations.NullMarked;
