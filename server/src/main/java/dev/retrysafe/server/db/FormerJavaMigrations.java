package dev.retrysafe.server.db;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.flywaydb.core.api.MigrationInfo;
import org.flywaydb.core.api.configuration.FluentConfiguration;

/**
 * The history rows of the migrations V2 to V6, which were Java classes ({@code db.migration.V2__...})
 * until 2026-12 and are SQL files now that run the same statements. Flyway's validation compares
 * each applied migration's type and checksum with the one it finds, and would refuse to start on
 * a database that the classes migrated ({@code JDBC} with no checksum against {@code SQL} with
 * the file's checksum). Before Flyway runs, {@link #realign} rewrites exactly those rows, and only
 * while they are as the classes left them, into what the SQL files record: type {@code SQL}, the
 * file's name, the file's checksum as Flyway computes it. Nothing runs again; any other difference
 * still fails validation. Idempotent, and safe when several instances start at once (the update's
 * condition is checked again under the row lock). Stateless.
 */
final class FormerJavaMigrations {

    /** Flyway's default history table, as it names it on H2 and PostgreSQL alike (quoted, lower case). */
    private static final String HISTORY = "flyway_schema_history";
    /** The versions that were Java classes, by the class name Flyway recorded as their script. */
    static final Map<String, String> CLASSES = Map.of(
            "2", "db.migration.V2__Idempotency_keys",
            "3", "db.migration.V3__Webhook_delivery",
            "4", "db.migration.V4__Jobs",
            "5", "db.migration.V5__Webhook_rate_limit",
            "6", "db.migration.V6__Dashboard_indexes");

    private static final String REALIGN = "UPDATE \"" + HISTORY + "\" SET \"type\" = 'SQL', \"script\" = ?,"
            + " \"checksum\" = ? WHERE \"version\" = ? AND \"type\" = 'JDBC' AND \"script\" = ? AND \"success\"";
    private static final String ANY_FORMER = "SELECT COUNT(*) FROM \"" + HISTORY + "\" WHERE \"type\" = 'JDBC'"
            + " AND \"script\" IN (" + String.join(", ", List.of("?", "?", "?", "?", "?")) + ")";

    private FormerJavaMigrations() {}

    /**
     * Rewrites the rows of the former Java migrations, if any, as the SQL migrations of
     * {@code flyway} would have recorded them; answers how many it rewrote.
     */
    static int realign(DataSource dataSource, FluentConfiguration flyway) throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            if (!hasHistory(c) || countFormer(c) == 0) {
                return 0; // a new database, or one realigned already: no need to resolve the files
            }
        }
        // with no connection held: Flyway takes two of its own, and a one-off command's pool has two
        Map<String, MigrationInfo> files = resolved(flyway);
        try (Connection c = dataSource.getConnection()) {
            boolean autoCommit = c.getAutoCommit();
            c.setAutoCommit(false);
            try (PreparedStatement s = c.prepareStatement(REALIGN)) {
                int rows = 0;
                for (Map.Entry<String, String> former : CLASSES.entrySet()) {
                    MigrationInfo file = files.get(former.getKey());
                    if (file == null || file.getChecksum() == null) {
                        throw new IllegalStateException("migration V" + former.getKey() + " is not an SQL file of "
                                + "db/migration, yet the database ran it as " + former.getValue());
                    }
                    s.setString(1, file.getScript());
                    s.setInt(2, file.getChecksum());
                    s.setString(3, former.getKey());
                    s.setString(4, former.getValue());
                    rows += s.executeUpdate();
                }
                c.commit();
                return rows;
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            } finally {
                c.setAutoCommit(autoCommit);
            }
        }
    }

    private static boolean hasHistory(Connection c) throws SQLException {
        try (ResultSet r = c.getMetaData().getTables(c.getCatalog(), c.getSchema(), HISTORY, null)) {
            return r.next();
        }
    }

    private static int countFormer(Connection c) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(ANY_FORMER)) {
            int i = 1;
            for (String script : CLASSES.values()) {
                s.setString(i++, script);
            }
            try (ResultSet r = s.executeQuery()) {
                r.next();
                return r.getInt(1);
            }
        }
    }

    /**
     * The migrations of {@code flyway}'s locations with the checksums Flyway computes for them, by
     * version: read as pending against a history table that does not exist (reading creates nothing).
     */
    private static Map<String, MigrationInfo> resolved(FluentConfiguration flyway) {
        FluentConfiguration probe = new FluentConfiguration(flyway.getClassLoader())
                .configuration(flyway)
                .table("retrysafe_no_history");
        Map<String, MigrationInfo> byVersion = new HashMap<>();
        for (MigrationInfo m : probe.load().info().pending()) {
            if (m.getVersion() != null) {
                byVersion.put(m.getVersion().getVersion(), m);
            }
        }
        return byVersion;
    }
}
