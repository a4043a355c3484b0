/**
 * Implementation of the retrying client: the per-call retry state, header parsing
 * ({@code Retry-After}, rate-limit fields), pacing and the retry budget. Exported to the typed SDK
 * alone, so that it reads a job's {@code Retry-After} with the client's own
 * {@link dev.retrysafe.client.internal.RetryAfterHeader} instead of a copy.
 */
@NullMarked
package dev.retrysafe.client.internal;

import org.jspecify.annotations.NullMarked;
