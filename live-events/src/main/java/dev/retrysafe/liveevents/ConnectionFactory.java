package dev.retrysafe.liveevents;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * Opens a PostgreSQL connection that the streams hold for as long as they run (the
 * {@code LISTEN} of the signals between instances), so not one of the request pool's.
 */
@FunctionalInterface
public interface ConnectionFactory {

    /** A new connection. */
    Connection connect() throws SQLException;
}
