/**
 * A simulated bank, slow on purpose ({@code RETRYSAFE_BANK_LATENCY_MS}) and idempotent by a charge
 * key, with its own records outside the request's transaction, like a real processor.
 */
@NullMarked
package com.example.payments.bank;

import org.jspecify.annotations.NullMarked;
