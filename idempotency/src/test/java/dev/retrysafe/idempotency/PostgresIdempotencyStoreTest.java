package dev.retrysafe.idempotency;

import dev.retrysafe.testkit.CountingDataSource;
import dev.retrysafe.testkit.PostgresTestDatabase;

/** The store contract on PostgreSQL; fails (never skips) when PostgreSQL is unreachable. */
class PostgresIdempotencyStoreTest extends IdempotencyStoreContract {

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
