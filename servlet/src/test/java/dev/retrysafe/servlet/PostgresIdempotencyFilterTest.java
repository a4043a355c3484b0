package dev.retrysafe.servlet;

import dev.retrysafe.testkit.CountingDataSource;
import dev.retrysafe.testkit.PostgresTestDatabase;

/** The filter end to end on PostgreSQL; fails (never skips) when PostgreSQL is unreachable. */
class PostgresIdempotencyFilterTest extends IdempotencyFilterContract {

    private PostgresTestDatabase database;

    @Override
    protected CountingDataSource openDatabase() {
        database = PostgresTestDatabase.create();
        return new CountingDataSource(database.jdbcUrl(), database.user());
    }

    @Override
    protected void closeDatabase() {
        if (database != null) {
            database.close();
        }
    }
}
