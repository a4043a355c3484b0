package dev.retrysafe.testkit;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.Properties;
import java.util.UUID;

/**
 * A PostgreSQL database of its own for one test class: created empty on {@link #create()},
 * dropped (with its connections) on {@link #close()}. The server is found through
 * {@code RETRYSAFE_TEST_PG_URL} (default {@code jdbc:postgresql://127.0.0.1:5432/postgres}) and
 * {@code RETRYSAFE_TEST_PG_USER} (default {@code postgres}). If PostgreSQL cannot be reached the
 * test fails loudly: tests that need it are never skipped.
 */
public final class PostgresTestDatabase implements AutoCloseable {

    /** Every database made here starts with this, so {@code ./test} can sweep leftovers of killed runs. */
    public static final String NAME_PREFIX = "rs_test_";

    private final String adminUrl;
    private final String user;
    private final String name;

    private PostgresTestDatabase(String adminUrl, String user, String name) {
        this.adminUrl = adminUrl;
        this.user = user;
        this.name = name;
    }

    /** Creates a new, empty database with a random name. */
    public static PostgresTestDatabase create() {
        String adminUrl = env("RETRYSAFE_TEST_PG_URL", "jdbc:postgresql://127.0.0.1:5432/postgres");
        String user = env("RETRYSAFE_TEST_PG_USER", "postgres");
        // the creating process's id lets ./test sweep only the databases of runs that are gone,
        // never those of a run going on beside it
        String name = NAME_PREFIX + ProcessHandle.current().pid() + "_"
                + UUID.randomUUID().toString().replace("-", "").substring(0, 12).toLowerCase(Locale.ROOT);
        PostgresTestDatabase db = new PostgresTestDatabase(adminUrl, user, name);
        db.execute("CREATE DATABASE " + name);
        return db;
    }

    /** The JDBC URL of this database. */
    public String jdbcUrl() {
        int slash = adminUrl.lastIndexOf('/');
        int query = adminUrl.indexOf('?', slash);
        return adminUrl.substring(0, slash + 1) + name + (query < 0 ? "" : adminUrl.substring(query));
    }

    /** The user to connect as (trust authentication, no password). */
    public String user() {
        return user;
    }

    /** The database's name. */
    public String name() {
        return name;
    }

    /** A new connection to this database; the caller closes it. */
    public Connection connect() throws SQLException {
        return DriverManager.getConnection(jdbcUrl(), properties());
    }

    @Override
    public void close() {
        execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
    }

    private void execute(String sql) {
        try (Connection c = DriverManager.getConnection(adminUrl, properties());
                Statement s = c.createStatement()) {
            s.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException(
                    "PostgreSQL at " + adminUrl + " as " + user
                            + " is required by this test and failed on [" + sql + "]: " + e.getMessage()
                            + " (./test starts PostgreSQL; set RETRYSAFE_TEST_PG_URL to use another server)",
                    e);
        }
    }

    private Properties properties() {
        Properties p = new Properties();
        p.setProperty("user", user);
        return p;
    }

    private static String env(String name, String fallback) {
        String value = System.getenv(name);
        return value == null || value.isBlank() ? fallback : value;
    }
}
