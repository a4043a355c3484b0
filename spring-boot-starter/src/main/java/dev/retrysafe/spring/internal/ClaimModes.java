package dev.retrysafe.spring.internal;

import dev.retrysafe.idempotency.ClaimMode;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Locale;
import javax.sql.DataSource;

/**
 * The claim mode when {@code retrysafe.idempotency.claims} is not set, as the Retrysafe server
 * chooses it: the cheapest claim the database allows. PostgreSQL holds the claim as a lock of the
 * request's own transaction and an embedded H2 database (one process) in this process's memory,
 * both without a transaction of their own; any other database gets {@link ClaimMode#ROWS}, one
 * more short transaction per new key. In every mode a keyed request holds one pooled connection
 * at a time: a claim row is committed, and its connection given back, before the request's
 * transaction begins.
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
