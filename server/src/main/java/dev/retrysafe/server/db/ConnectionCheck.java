package dev.retrysafe.server.db;

import dev.retrysafe.server.config.DatabaseConfig;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Properties;

/**
 * One connection made before the pool and the migrations run, so that the usual mistakes of a
 * first start (a PostgreSQL database not created yet, an embedded data folder that another server
 * holds, a wrong password, a database server that is not running) end the start with one line that
 * says what to do, instead of a migration tool's error several causes deep. Stateless.
 */
public final class ConnectionCheck {

    /** PostgreSQL's SQLSTATE {@code invalid_catalog_name}: the database does not exist. */
    static final String NO_SUCH_DATABASE = "3D000";
    /** PostgreSQL's SQLSTATE class 28, {@code invalid_authorization_specification}. */
    static final String AUTHORIZATION_CLASS = "28";
    /** SQLSTATE class 08: the connection could not be made. */
    static final String CONNECTION_CLASS = "08";
    /** H2's {@code DATABASE_ALREADY_OPEN_1}: another process holds the database file. */
    public static final int H2_FILE_IN_USE = 90020;

    private static final String CONNECT_TIMEOUT_SECONDS = "5";

    private ConnectionCheck() {}

    /**
     * Connects once to the database of {@code config} and closes the connection; throws with a
     * message that says what to do when that fails.
     */
    public static void connect(DatabaseConfig config, Path dataDir) throws DatabaseUnavailableException {
        String url = config.jdbcUrl(dataDir);
        Properties properties = new Properties();
        if (!config.user().isEmpty()) {
            properties.setProperty("user", config.user());
        }
        if (!config.password().isEmpty()) {
            properties.setProperty("password", config.password());
        }
        if (config.postgres()) {
            properties.setProperty("connectTimeout", CONNECT_TIMEOUT_SECONDS);
        }
        try {
            Connection c = DriverManager.getConnection(url, properties);
            c.close(); // connected: the pool will too
        } catch (SQLException e) {
            throw new DatabaseUnavailableException(explain(e, config, dataDir), e);
        }
    }

    /** The one line for {@code e}, a failure to connect to the database of {@code config}. */
    static String explain(SQLException e, DatabaseConfig config, Path dataDir) {
        String state = e.getSQLState() == null ? "" : e.getSQLState();
        if (config.postgres()) {
            Properties url = org.postgresql.Driver.parseURL(config.jdbcUrl(dataDir), new Properties());
            String name = url == null ? "?" : url.getProperty("PGDBNAME", "?");
            String host = url == null ? "?" : url.getProperty("PGHOST", "localhost");
            String port = url == null ? "5432" : url.getProperty("PGPORT", "5432");
            if (state.equals(NO_SUCH_DATABASE)) {
                return "the PostgreSQL database '" + name + "' does not exist on " + host + ":" + port
                        + "; create it, then start again: createdb -h " + host + " -p " + port
                        + (config.user().isEmpty() ? "" : " -U " + config.user()) + " " + name
                        + " (or in psql: CREATE DATABASE " + quoted(name) + ";)";
            }
            if (state.startsWith(AUTHORIZATION_CLASS)) {
                return "PostgreSQL on " + host + ":" + port + " refused the login"
                        + (config.user().isEmpty() ? "" : " of user '" + config.user() + "'")
                        + ": check RETRYSAFE_DATABASE_USER and RETRYSAFE_DATABASE_PASSWORD (or database.user and"
                        + " database.password) (" + firstLine(e) + ")";
            }
            if (state.startsWith(CONNECTION_CLASS)) {
                return "cannot reach PostgreSQL on " + host + ":" + port
                        + ": is it running, and is RETRYSAFE_DATABASE_URL right? (" + firstLine(e) + ")";
            }
        }
        if (config.embedded() && e.getErrorCode() == H2_FILE_IN_USE) {
            return "the embedded database in " + dataDir.toAbsolutePath().normalize()
                    + " is in use by another process (a Retrysafe server on the same data folder?): stop it,"
                    + " or give this server a folder of its own (RETRYSAFE_DATA_DIR=other-folder)";
        }
        return "cannot connect to the database " + config.describe(dataDir) + ": " + firstLine(e);
    }

    /** {@code name} as an SQL identifier, quoted when it is not a plain lower-case name. */
    private static String quoted(String name) {
        return name.matches("[a-z_][a-z0-9_]*") ? name : "\"" + name.replace("\"", "\"\"") + "\"";
    }

    /** The driver's message, first line only: one line is what the caller prints. */
    private static String firstLine(SQLException e) {
        String message = e.getMessage() == null ? e.toString() : e.getMessage().strip();
        int end = message.indexOf('\n');
        return end < 0 ? message : message.substring(0, end).strip();
    }
}
