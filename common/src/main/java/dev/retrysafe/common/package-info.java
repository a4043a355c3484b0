/**
 * Shared by Retrysafe's JDBC modules (jobs, delivery, idempotency) and by nothing else: running a
 * transaction again after a transient lock conflict, and reading a module's versioned DDL scripts.
 * Exported only to those modules; not an API.
 */
@NullMarked
package dev.retrysafe.common;

import org.jspecify.annotations.NullMarked;
