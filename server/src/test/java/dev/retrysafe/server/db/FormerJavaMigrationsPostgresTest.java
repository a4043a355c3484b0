package dev.retrysafe.server.db;

import static org.assertj.core.api.Assertions.assertThat;

import dev.retrysafe.server.config.DatabaseConfig;
import dev.retrysafe.testkit.PostgresTestDatabase;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A PostgreSQL deployment's database. */
class FormerJavaMigrationsPostgresTest extends FormerJavaMigrationsContract {

    /** The schema the Java migrations made, read with {@link #COLUMNS} and {@link #INDEXES}. */
    private static final String SCHEMA_FIXTURE = "/db/schema-made-by-java-migrations.postgres.txt";

    private static final String COLUMNS = "SELECT rtrim(table_name || '.' || column_name || ' ' || data_type"
            + " || coalesce('(' || character_maximum_length || ')', '') || ' ' || is_nullable || ' '"
            + " || coalesce(column_default, '')) FROM information_schema.columns WHERE table_schema = current_schema()"
            + " AND table_name <> 'flyway_schema_history' ORDER BY table_name, column_name";
    private static final String INDEXES = "SELECT indexdef FROM pg_indexes WHERE schemaname = current_schema()"
            + " AND tablename <> 'flyway_schema_history' ORDER BY indexname";

    private final List<PostgresTestDatabase> databases = new ArrayList<>();

    @Override
    protected Database newDatabase() {
        PostgresTestDatabase database = PostgresTestDatabase.create();
        databases.add(database);
        return Database.open(
                new DatabaseConfig(database.jdbcUrl(), database.user(), "", 2), Path.of("."), "former-migrations", 2);
    }

    @AfterEach
    void drop() {
        databases.forEach(PostgresTestDatabase::close);
    }

    @Test
    void theSqlFilesMakeTheSchemaTheJavaMigrationsMade() throws Exception {
        try (Database db = newDatabase()) {
            db.migrate();

            List<String> schema = new ArrayList<>();
            try (Connection c = db.dataSource().getConnection();
                    Statement s = c.createStatement()) {
                schema.addAll(lines(s, COLUMNS));
                schema.addAll(lines(s, INDEXES));
            }

            assertThat(schema).containsExactlyElementsOf(fixture());
        }
    }

    private static List<String> lines(Statement s, String query) throws SQLException {
        List<String> out = new ArrayList<>();
        try (ResultSet r = s.executeQuery(query)) {
            while (r.next()) {
                out.add(r.getString(1));
            }
        }
        return out;
    }

    private static List<String> fixture() throws IOException {
        try (InputStream in = FormerJavaMigrationsPostgresTest.class.getResourceAsStream(SCHEMA_FIXTURE)) {
            assertThat(in).as(SCHEMA_FIXTURE).isNotNull();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8)
                    .lines()
                    .filter(l -> !l.startsWith("#") && !l.isBlank())
                    .toList();
        }
    }
}
