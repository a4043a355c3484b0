package dev.retrysafe.spring.internal;

import dev.retrysafe.delivery.DeliverySchema;
import dev.retrysafe.idempotency.JdbcIdempotencyStore;
import dev.retrysafe.jobs.JobSchema;
import dev.retrysafe.webhooks.JdbcWebhookDeduplicator;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.util.List;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.sql.DataSource;

/**
 * Every Retrysafe table on the application's {@code DataSource}, created and kept current by the
 * starter's own versioned migrations, whose statements are the libraries' own scripts (never a
 * copy): version 1 runs each module's current schema; a later version runs a module's upgrade
 * statements from the version before, which change nothing where they are already applied. The
 * versions applied are recorded in a history table of Retrysafe's own, apart from the
 * application's migrations. Threadsafe.
 */
public final class RetrysafeSchema {

    /** One of the starter's migrations. */
    public record Migration(int version, String description, Supplier<List<String>> statements) {}

    /** The starter's migrations, oldest first. A migration never changes once released. */
    public static final List<Migration> MIGRATIONS = List.of(
            new Migration(
                    1,
                    "Retrysafe tables: idempotency keys, received webhooks, webhook delivery, jobs",
                    () -> Stream.of(
                                    JdbcIdempotencyStore.schemaStatements(),
                                    JdbcWebhookDeduplicator.schemaStatements(),
                                    DeliverySchema.schemaStatements(),
                                    JobSchema.schemaStatements())
                            .flatMap(List::stream)
                            .toList()),
            new Migration(
                    2,
                    "Webhook delivery v2: pause, ordering keys, custom headers, trace context (delivery schema 4)",
                    () -> DeliverySchema.upgradeStatements(3)),
            new Migration(
                    3,
                    "Webhook delivery: due deliveries indexed by endpoint (delivery schema 5)",
                    () -> DeliverySchema.upgradeStatements(4)));

    /** One table of each module, which the health check reads. */
    public static final List<String> TABLES =
            List.of("idempotency_keys", "received_webhooks", "webhook_endpoints", "deliveries", "jobs");

    private static final Pattern TABLE_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,62}");

    private final DataSource dataSource;
    private final String historyTable;
    private final Clock clock;

    /**
     * The schema on {@code dataSource}, its history in {@code historyTable}.
     *
     * @throws IllegalArgumentException if the table name is not a plain SQL identifier
     */
    public RetrysafeSchema(DataSource dataSource, String historyTable, Clock clock) {
        if (!TABLE_NAME.matcher(historyTable).matches()) {
            throw new IllegalArgumentException(
                    "retrysafe.schema.history-table must be a plain identifier: \"" + historyTable + "\"");
        }
        this.dataSource = dataSource;
        this.historyTable = historyTable;
        this.clock = clock;
    }

    /** The latest version of the starter's migrations. */
    public static int latestVersion() {
        return MIGRATIONS.get(MIGRATIONS.size() - 1).version();
    }

    /**
     * Applies every migration not yet recorded, each in a transaction of its own with its history
     * row (on PostgreSQL DDL is transactional, so a failed one leaves nothing).
     *
     * @return how many migrations ran
     * @throws SQLException if one fails; the ones before stay applied
     */
    public int migrate() throws SQLException {
        try (Connection connection = dataSource.getConnection()) {
            try (Statement statement = connection.createStatement()) {
                statement.execute("CREATE TABLE IF NOT EXISTS " + historyTable
                        + " (version INTEGER PRIMARY KEY, description VARCHAR(200) NOT NULL,"
                        + " installed_at BIGINT NOT NULL)");
            }
            int applied = 0;
            for (Migration migration : MIGRATIONS) {
                if (migration.version() > version(connection)) {
                    apply(connection, migration);
                    applied++;
                }
            }
            return applied;
        }
    }

    /** The latest version recorded by {@link #migrate()}, 0 when none is (or there is no history table yet). */
    public int recordedVersion() {
        try (Connection connection = dataSource.getConnection()) {
            return version(connection);
        } catch (SQLException noTable) {
            return 0;
        }
    }

    /** The history table. */
    public String historyTable() {
        return historyTable;
    }

    /** The data source the tables are on. */
    public DataSource dataSource() {
        return dataSource;
    }

    private int version(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("SELECT MAX(version) FROM " + historyTable)) {
            return rows.next() ? rows.getInt(1) : 0;
        }
    }

    private void apply(Connection connection, Migration migration) throws SQLException {
        boolean autoCommit = connection.getAutoCommit();
        connection.setAutoCommit(false);
        try (Statement statement = connection.createStatement();
                PreparedStatement history = connection.prepareStatement(
                        "INSERT INTO " + historyTable + " (version, description, installed_at) VALUES (?, ?, ?)")) {
            // the history row first: a second instance migrating at the same time waits on it, then fails
            history.setInt(1, migration.version());
            history.setString(2, migration.description());
            history.setLong(3, clock.millis());
            history.executeUpdate();
            for (String sql : migration.statements().get()) {
                statement.execute(sql);
            }
            connection.commit();
        } catch (SQLException | RuntimeException e) {
            connection.rollback();
            throw e;
        } finally {
            connection.setAutoCommit(autoCommit);
        }
    }
}
