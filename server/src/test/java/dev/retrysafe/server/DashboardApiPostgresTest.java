package dev.retrysafe.server;

import dev.retrysafe.testkit.PostgresTestDatabase;

/** The dashboard's routes on PostgreSQL (fails when PostgreSQL is unreachable). */
class DashboardApiPostgresTest extends DashboardApiContract {

    private PostgresTestDatabase database;

    @Override
    TestServer.Builder server() {
        database = PostgresTestDatabase.create();
        return TestServer.postgres(database);
    }

    @Override
    void afterServerStopped() {
        if (database != null) {
            database.close();
        }
    }
}
