package dev.retrysafe.servlet;

import dev.retrysafe.common.DatabaseOutages;
import org.jspecify.annotations.Nullable;

/**
 * Tells a failure caused by the database being unreachable (down, restarting, refusing
 * connections, or the connection dropped under a query) from every other failure, so that it is
 * answered {@code 503} with {@code Retry-After} rather than {@code 500}: the client's retry will
 * succeed once the database is back, and no transaction outlives the connection it ran on. The
 * {@link IdempotencyFilter} answers so; an application's own error handling can use it too.
 * Looks through the whole cause chain, since stores wrap the driver's exception in their own.
 * Stateless and threadsafe.
 */
public final class DatabaseOutage {

    private DatabaseOutage() {}

    /**
     * Whether {@code failure} or one of its causes says the database cannot be reached.
     *
     * @param failure what was thrown, or {@code null} (not an outage)
     * @return {@code true} for a connection that cannot be had or broke (SQLSTATE class 08, a
     *     connection exception type), or a server going away (57P01-57P03 shutting down or starting,
     *     53300 too many connections, 25P03 idle-in-transaction timeout: with advisory-lock claims, a
     *     request stalled past the idempotency lease, whose key a retry may already hold)
     */
    public static boolean causedBy(@Nullable Throwable failure) {
        return DatabaseOutages.causedBy(failure);
    }
}
