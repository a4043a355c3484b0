package dev.retrysafe.spring.internal;

import dev.retrysafe.idempotency.ClaimMode;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Locale;
import javax.sql.DataSource;

/**
 * The claim mode when {@code retrysafe.idempotency.claims} is not set, as the Retrysafe server
 * chooses it: every keyed request then needs one pooled connection, never two at once.
 *
 * <p>{@link ClaimMode#ROWS} commits its claim on a connection of its own while the request's
 * transaction holds another, so with more keyed requests in flight than the pool has
 * connections, every request would wait for a second connection that none gives back (measured
 * on the example application: 0 payments a second at 64 connections of load with Hikari's 10).
 * PostgreSQL holds the claim as a lock of the request's own transaction; an embedded H2 database
 * (one process) holds it in this process's memory; any other database gets rows, and its pool
 * must have more connections than twice the keyed requests in flight.
 */
public final class ClaimModes {

    private ClaimModes() {}

    /** The mode for the database behind {@code dataSource}. */
    public static ClaimMode forDatabase(DataSource dataSource) {
        String url;
        try (Connection c = dataSource.getConnection()) {
            url = c.getMetaData().getURL();
        } catch (SQLException e) {
            throw new IllegalStateException("cannot read which database the idempotency store is on", e);
        }
        return forUrl(url);
    }

    /** The mode for the JDBC URL {@code url}. */
    static ClaimMode forUrl(String url) {
        String u = url.toLowerCase(Locale.ROOT);
        if (u.startsWith("jdbc:postgresql:")) {
            return ClaimMode.POSTGRES_ADVISORY_LOCKS;
        }
        boolean embeddedH2 = u.startsWith("jdbc:h2:") && !u.startsWith("jdbc:h2:tcp:") && !u.startsWith("jdbc:h2:ssl:");
        if (embeddedH2 && !u.contains(";auto_server=true")) {
            return ClaimMode.IN_PROCESS;
        }
        return ClaimMode.ROWS;
    }
}
