package dev.retrysafe.server;

import dev.retrysafe.testkit.PostgresTestDatabase;

/** The webhook endpoint contract on PostgreSQL (fails when PostgreSQL is unreachable). */
class WebhookEndpointsApiPostgresTest extends WebhookEndpointsApiContract {

    private PostgresTestDatabase database;

    @Override
    TestServer startServer() {
        database = PostgresTestDatabase.create();
        return TestServer.postgres(database).start();
    }

    @Override
    void afterServerStopped() {
        if (database != null) {
            database.close();
        }
    }
}
