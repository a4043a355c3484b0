package dev.retrysafe.server.db;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.FlywayException;
import org.junit.jupiter.api.Test;

/**
 * A database whose V2 to V6 ran as the Java migrations they were until 2026-12 starts with the SQL
 * files that replaced them: nothing runs again, its history reads as if the files had always been
 * there, and validation still catches a migration that really changed. Written once, run against
 * the embedded H2 database and PostgreSQL.
 */
abstract class FormerJavaMigrationsContract {

    /**
     * The rows the Java migrations left, as Flyway 13.12.1 wrote them on H2 and PostgreSQL alike
     * (read from databases migrated by the last version with the classes, 2026-12-07): type
     * {@code JDBC}, the class as script, no checksum.
     */
    private static final String AS_THE_CLASSES_LEFT_THEM = "UPDATE \"flyway_schema_history\" SET \"type\" = 'JDBC',"
            + " \"script\" = ?, \"checksum\" = NULL WHERE \"version\" = ?";

    /** A pool on a new, empty database of the test's own; closing it drops what it holds. */
    protected abstract Database newDatabase() throws Exception;

    /** One row of the history: what Flyway validates, and what shows that a migration ran again. */
    private record Row(
            int rank,
            String version,
            String description,
            String type,
            String script,
            Integer checksum,
            String installedOn) {}

    @Test
    void aDatabaseMigratedByTheJavaClassesStartsWithoutRunningThemAgain() throws Exception {
        try (Database fresh = newDatabase();
                Database former = newDatabase()) {
            fresh.migrate();
            // given a database as the Java migrations left it (its schema is the same: the files hold their statements)
            former.migrate();
            try (Connection c = former.dataSource().getConnection();
                    PreparedStatement s = c.prepareStatement(AS_THE_CLASSES_LEFT_THEM)) {
                for (Map.Entry<String, String> m : FormerJavaMigrations.CLASSES.entrySet()) {
                    s.setString(1, m.getValue());
                    s.setString(2, m.getKey());
                    assertThat(s.executeUpdate()).isEqualTo(1);
                }
            }
            List<Row> before = history(former);
            assertThat(before).filteredOn(r -> r.type().equals("JDBC")).hasSize(5);
            assertThatThrownBy(() -> flyway(former).validate())
                    .as("without the realignment, Flyway refuses the database")
                    .isInstanceOf(FlywayException.class);

            // when a server of this version starts on it
            former.migrate();

            // then its history is the fresh database's, and nothing ran again
            List<Row> after = history(former);
            assertThat(after)
                    .extracting(Row::rank, Row::installedOn)
                    .as("the same rows, installed when they were")
                    .isEqualTo(before.stream()
                            .map(r -> tuple(r.rank(), r.installedOn()))
                            .toList());
            assertThat(after)
                    .extracting(Row::version, Row::description, Row::type, Row::script, Row::checksum)
                    .isEqualTo(history(fresh).stream()
                            .map(r -> tuple(r.version(), r.description(), r.type(), r.script(), r.checksum()))
                            .toList());
            flyway(former).validate();
            // and a second start changes nothing
            former.migrate();
            assertThat(history(former)).isEqualTo(after);
        }
    }

    @Test
    void aMigrationThatReallyChangedStillFailsValidation() throws Exception {
        try (Database db = newDatabase()) {
            db.migrate();
            try (Connection c = db.dataSource().getConnection();
                    Statement s = c.createStatement()) {
                // a V3 that ran something else than the delivery tables' class
                s.executeUpdate("UPDATE \"flyway_schema_history\" SET \"type\" = 'JDBC', \"script\" ="
                        + " 'db.migration.V3__Something_else', \"checksum\" = NULL WHERE \"version\" = '3'");
                // and a V7 whose file changed since it ran
                s.executeUpdate("UPDATE \"flyway_schema_history\" SET \"checksum\" = 42 WHERE \"version\" = '7'");
            }

            assertThatThrownBy(db::migrate)
                    .isInstanceOf(FlywayException.class)
                    .hasMessageContaining("3")
                    .hasMessageContaining("7");
        }
    }

    private static Flyway flyway(Database db) {
        return Flyway.configure()
                .dataSource(db.dataSource())
                .locations("classpath:db/migration")
                .load();
    }

    private static List<Row> history(Database db) throws SQLException {
        List<Row> rows = new ArrayList<>();
        try (Connection c = db.dataSource().getConnection();
                Statement s = c.createStatement();
                ResultSet r =
                        s.executeQuery("SELECT \"installed_rank\", \"version\", \"description\", \"type\", \"script\","
                                + " \"checksum\", \"installed_on\" FROM \"flyway_schema_history\" WHERE \"version\" IS NOT NULL"
                                + " ORDER BY \"installed_rank\"")) {
            while (r.next()) {
                rows.add(new Row(
                        r.getInt(1),
                        r.getString(2),
                        r.getString(3),
                        r.getString(4),
                        r.getString(5),
                        (Integer) r.getObject(6),
                        r.getString(7)));
            }
        }
        return rows;
    }
}
