package dev.retrysafe.server;

import dev.retrysafe.testkit.PostgresTestDatabase;
import java.util.function.UnaryOperator;

/** The report and job contract on PostgreSQL (fails when PostgreSQL is unreachable). */
class ReportsApiPostgresTest extends ReportsApiContract {

    private PostgresTestDatabase database;

    @Override
    TestServer startServer(UnaryOperator<TestServer.Builder> setup) {
        database = PostgresTestDatabase.create();
        return setup.apply(TestServer.postgres(database)).start();
    }

    @Override
    void afterServerStopped() {
        if (database != null) {
            database.close();
        }
    }
}
