/**
 * The database: the connection pool, versioned migrations that run unchanged on H2 and
 * PostgreSQL, the one helper that runs handler work in a transaction, and resource ids.
 */
@NullMarked
package dev.retrysafe.server.db;

import org.jspecify.annotations.NullMarked;
