/**
 * Payments and refunds: request validation, the SQL (every query scoped to the account), the
 * outbox events written in the same transaction, and the HTTP handlers.
 */
@NullMarked
package dev.retrysafe.server.payments;

import org.jspecify.annotations.NullMarked;
