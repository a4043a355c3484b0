/**
 * Implementation of the retrying and the typed client: the per-call retry state, header parsing
 * ({@code Retry-After}, rate-limit fields), pacing, the retry budget and a small JSON reader and
 * writer; not exported.
 */
@NullMarked
package dev.retrysafe.client.internal;

import org.jspecify.annotations.NullMarked;
