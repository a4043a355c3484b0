/**
 * Who is calling: {@code Authorization: Bearer <key>} checked against the keys configured in
 * {@code RETRYSAFE_BOOTSTRAP_API_KEYS}, one account per key. The same account is what Retrysafe
 * scopes idempotency keys and rate limits by ({@code RetrysafeCaller}).
 */
@NullMarked
package com.example.payments.auth;

import org.jspecify.annotations.NullMarked;
