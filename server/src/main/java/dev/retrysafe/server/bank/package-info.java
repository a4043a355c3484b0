/**
 * The simulated bank behind payments: slow on purpose, failing on demand, and idempotent by a
 * charge key like a real payment processor, with its own records outside the request's
 * transaction.
 */
@NullMarked
package dev.retrysafe.server.bank;

import org.jspecify.annotations.NullMarked;
