package dev.retrysafe.spring;

import dev.retrysafe.delivery.DeliverySchema;
import dev.retrysafe.jobs.JobSchema;
import dev.retrysafe.webhooks.JdbcWebhookDeduplicator;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.UUID;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;

/** Test databases: empty, or with the delivery, jobs and received-webhooks tables made by the libraries' own schema classes. */
final class TestSchemas {

    private TestSchemas() {}

    static void create(Connection connection) throws SQLException {
        run(connection, DeliverySchema.schemaStatements());
        run(connection, JobSchema.schemaStatements());
        run(connection, JdbcWebhookDeduplicator.schemaStatements());
    }

    /**
     * A new, empty in-memory H2 database (PostgreSQL mode), for an application whose starter
     * creates the tables ({@code retrysafe.schema}).
     */
    static String newH2() {
        return "jdbc:h2:mem:starter_" + UUID.randomUUID().toString().replace("-", "")
                + ";MODE=PostgreSQL;DB_CLOSE_DELAY=-1";
    }

    /**
     * A new in-memory H2 database (PostgreSQL mode) with every table, for a context built without
     * the starter's schema support.
     */
    static String h2WithTables() throws SQLException {
        String url = newH2();
        try (Connection c = h2(url).getConnection()) {
            create(c);
        }
        return url;
    }

    static DataSource h2(String url) {
        JdbcDataSource dataSource = new JdbcDataSource();
        dataSource.setURL(url);
        dataSource.setUser("sa");
        return dataSource;
    }

    private static void run(Connection connection, List<String> statements) throws SQLException {
        try (Statement s = connection.createStatement()) {
            for (String sql : statements) {
                s.execute(sql);
            }
        }
    }
}
