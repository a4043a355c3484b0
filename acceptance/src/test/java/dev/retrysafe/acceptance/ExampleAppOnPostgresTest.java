package dev.retrysafe.acceptance;

import dev.retrysafe.testkit.PostgresTestDatabase;
import java.nio.file.Path;

/** The example application on PostgreSQL, by {@code RETRYSAFE_DATABASE_URL}. */
class ExampleAppOnPostgresTest extends ExampleAppContract {

    @Override
    ExampleApp.Store newStore(Path dir) {
        return new ExampleApp.Postgres(PostgresTestDatabase.create());
    }

    @Override
    void drop(ExampleApp.Store store) {
        ((ExampleApp.Postgres) store).db().close();
    }
}
