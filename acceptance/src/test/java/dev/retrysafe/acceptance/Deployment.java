package dev.retrysafe.acceptance;

import dev.retrysafe.server.TestServer;
import dev.retrysafe.testkit.PostgresTestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;

/**
 * A started server on its own database ({@link Storage}), and direct access to that database for
 * the assertions. Closing it stops the server and drops the PostgreSQL database it made.
 */
final class Deployment implements AutoCloseable {

    final TestServer server;
    /** The PostgreSQL database this deployment created; {@code null} on H2, whose file the server owns. */
    private final @Nullable PostgresTestDatabase database;

    private Deployment(TestServer server, @Nullable PostgresTestDatabase database) {
        this.server = server;
        this.database = database;
    }

    /** Starts a server on {@code storage}, configured by {@code setup} (clock, lease, bank...). */
    static Deployment start(Storage storage, UnaryOperator<TestServer.Builder> setup) {
        if (storage == Storage.H2) {
            return new Deployment(setup.apply(TestServer.h2()).start(), null);
        }
        PostgresTestDatabase db = PostgresTestDatabase.create();
        try {
            return new Deployment(setup.apply(TestServer.postgres(db)).start(), db);
        } catch (RuntimeException e) {
            db.close(); // the server did not start, so nothing else would drop the database
            throw e;
        }
    }

    /** A connection to the server's database (H2 runs with AUTO_SERVER, so a second one works). */
    Connection connect() throws SQLException {
        if (database != null) {
            return database.connect();
        }
        return DriverManager.getConnection(
                server.config().database().jdbcUrl(server.config().dataDir()), "", "");
    }

    /** See {@link Queries#count}. */
    long count(String sql) throws SQLException {
        try (Connection c = connect()) {
            return Queries.count(c, sql);
        }
    }

    /** See {@link Queries#paymentsPerKey}. */
    Map<String, Long> paymentsPerKey() throws SQLException {
        try (Connection c = connect()) {
            return Queries.paymentsPerKey(c);
        }
    }

    /** See {@link Queries#paymentIdsByKey}: fails if a key has more than one payment. */
    Map<String, String> paymentIdsByKey() throws SQLException {
        try (Connection c = connect()) {
            return Queries.paymentIdsByKey(c);
        }
    }

    @Override
    public void close() {
        try {
            server.close();
        } finally {
            if (database != null) {
                database.close();
            }
        }
    }
}
