/**
 * The hidden machinery of the idempotency module: the canonical-JSON parser behind fingerprints,
 * the header text format, and the JDBC store's SQL and logic. Not exported; use the types of
 * {@code dev.retrysafe.idempotency} instead.
 */
@NullMarked
package dev.retrysafe.idempotency.internal;

import org.jspecify.annotations.NullMarked;
