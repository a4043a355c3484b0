package dev.retrysafe.spring.internal;

import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.MigrationVersion;
import org.flywaydb.core.api.migration.Context;
import org.flywaydb.core.api.migration.JavaMigration;

/**
 * {@link RetrysafeSchema}'s migrations run by Flyway, for an application that has it: a Flyway of
 * Retrysafe's own on the application's {@code DataSource}, with its own history table, so that
 * Retrysafe's versions never mix with the application's. A database that the starter migrated
 * without Flyway starts from the version it recorded. Threadsafe.
 */
public final class FlywaySchema {

    /** Where Flyway looks for SQL migrations of Retrysafe: nowhere (ours are Java, the app's are its own). */
    private static final String NO_SQL_LOCATION = "classpath:dev/retrysafe/spring/no-sql-migrations";

    private FlywaySchema() {}

    /**
     * Applies the migrations Flyway's history table {@code historyTable} does not list yet.
     *
     * @param recordedWithoutFlyway the version the starter recorded without Flyway (0 if none),
     *     taken as Flyway's baseline on a first run
     * @return how many migrations ran
     */
    public static int migrate(DataSource dataSource, String historyTable, int recordedWithoutFlyway) {
        JavaMigration[] migrations = RetrysafeSchema.MIGRATIONS.stream()
                .map(FlywaySchema::javaMigration)
                .toArray(JavaMigration[]::new);
        return Flyway.configure()
                .dataSource(dataSource)
                .table(historyTable)
                .locations(NO_SQL_LOCATION)
                .javaMigrations(migrations)
                .baselineOnMigrate(true) // the application's tables are there: ours start beside them
                .baselineVersion(MigrationVersion.fromVersion(Integer.toString(recordedWithoutFlyway)))
                .baselineDescription("Retrysafe tables before Flyway")
                .load()
                .migrate()
                .migrationsExecuted;
    }

    private static JavaMigration javaMigration(RetrysafeSchema.Migration migration) {
        return new JavaMigration() {
            @Override
            public MigrationVersion getVersion() {
                return MigrationVersion.fromVersion(Integer.toString(migration.version()));
            }

            @Override
            public String getDescription() {
                return migration.description();
            }

            @Override
            public Integer getChecksum() {
                return null; // the statements are the libraries': their text is not this migration's
            }

            @Override
            public boolean canExecuteInTransaction() {
                return true;
            }

            @Override
            public void migrate(Context context) throws SQLException {
                try (Statement statement = context.getConnection().createStatement()) {
                    for (String sql : migration.statements().get()) {
                        statement.execute(sql);
                    }
                }
            }
        };
    }
}
