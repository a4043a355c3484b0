package dev.retrysafe.server;

import dev.retrysafe.server.config.ServerConfig;
import dev.retrysafe.testkit.PostgresTestDatabase;
import java.util.function.UnaryOperator;

/** The report and job contract on PostgreSQL (fails when PostgreSQL is unreachable). */
class ReportsApiPostgresTest extends ReportsApiContract {

    private PostgresTestDatabase database;

    @Override
    TestServer startServer(UnaryOperator<ServerConfig> settings) {
        database = PostgresTestDatabase.create();
        return TestServer.postgres(database).configure(settings).start();
    }

    @Override
    void afterServerStopped() {
        if (database != null) {
            database.close();
        }
    }
}
