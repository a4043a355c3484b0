package dev.retrysafe.testkit;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;

/**
 * An empty database that belongs to one test class, behind a {@link CountingDataSource}, gone
 * after {@link #close()}: an in-memory H2 database in PostgreSQL mode, or a PostgreSQL database
 * of its own (which fails loudly, never skips, when PostgreSQL is unreachable). Lets one contract
 * test run unchanged against both backends.
 */
public interface ThrowawayDatabase extends AutoCloseable {

    /** The data source over this database. */
    CountingDataSource dataSource();

    /** Drops the database. */
    @Override
    void close();

    /** A new in-memory H2 database in PostgreSQL mode, named after {@code prefix}. */
    static ThrowawayDatabase h2(String prefix) {
        CountingDataSource ds = new CountingDataSource(
                "jdbc:h2:mem:" + prefix + "_" + UUID.randomUUID().toString().replace("-", "")
                        + ";MODE=PostgreSQL;DB_CLOSE_DELAY=-1",
                "");
        return new ThrowawayDatabase() {
            @Override
            public CountingDataSource dataSource() {
                return ds;
            }

            @Override
            public void close() {
                try (Connection c = ds.getConnection();
                        Statement s = c.createStatement()) {
                    s.execute("SHUTDOWN");
                } catch (SQLException e) {
                    throw new IllegalStateException("could not shut the H2 test database down", e);
                }
            }
        };
    }

    /** A new PostgreSQL database (see {@link PostgresTestDatabase}). */
    static ThrowawayDatabase postgres() {
        PostgresTestDatabase database = PostgresTestDatabase.create();
        CountingDataSource ds = new CountingDataSource(database.jdbcUrl(), database.user());
        return new ThrowawayDatabase() {
            @Override
            public CountingDataSource dataSource() {
                return ds;
            }

            @Override
            public void close() {
                database.close();
            }
        };
    }
}
