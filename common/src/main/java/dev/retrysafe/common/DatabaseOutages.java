package dev.retrysafe.common;

import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLTransientConnectionException;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Tells a failure caused by the database being unreachable (down, restarting, refusing
 * connections, or the connection dropped under a query) from every other failure. Work that
 * failed so did nothing wrong of its own and succeeds once the database is back: the servlet
 * filter answers it {@code 503} with {@code Retry-After}, the job workers run the job again. Looks
 * through the whole cause chain, since stores wrap the driver's exception in their own. Stateless
 * and threadsafe.
 */
public final class DatabaseOutages {

    /**
     * SQLSTATEs of a server going away: administrator shutdown (a restart ends every session),
     * crash shutdown, cannot connect now (starting up or shutting down), too many connections; and
     * of a session the server ended because its transaction sat idle past
     * {@code idle_in_transaction_session_timeout} (25P03).
     */
    private static final Set<String> SERVER_GOING_AWAY = Set.of("57P01", "57P02", "57P03", "53300", "25P03");
    /** Causes followed at most: a chain is short, a loop in one must not hang the caller. */
    private static final int MAX_DEPTH = 20;

    private DatabaseOutages() {}

    /**
     * Whether {@code failure} or one of its causes says the database cannot be reached.
     *
     * @param failure what was thrown, or {@code null} (not an outage)
     * @return {@code true} for a connection that cannot be had or broke, or a server going away
     */
    public static boolean causedBy(@Nullable Throwable failure) {
        Throwable t = failure;
        for (int depth = 0; t != null && depth < MAX_DEPTH; depth++, t = t.getCause()) {
            if (t instanceof SQLTransientConnectionException || t instanceof SQLNonTransientConnectionException) {
                return true;
            }
            if (t instanceof SQLException sql && isConnectionState(sql.getSQLState())) {
                return true;
            }
        }
        return false;
    }

    /** SQLSTATE class 08 (connection exception) or a server going away. */
    private static boolean isConnectionState(@Nullable String state) {
        return state != null && (state.startsWith("08") || SERVER_GOING_AWAY.contains(state));
    }
}
