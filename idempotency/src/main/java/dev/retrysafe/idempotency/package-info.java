/**
 * Idempotency keys, framework-free: key rules, canonical-JSON fingerprints, and a store that
 * claims a key atomically with a lease, completes it in the operation's own transaction and
 * replays the stored answer.
 */
@NullMarked
package dev.retrysafe.idempotency;

import org.jspecify.annotations.NullMarked;
