package dev.retrysafe.jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.retrysafe.testkit.SchemaInspection;
import dev.retrysafe.testkit.ThrowawayDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class SchemaSqlTest {

    @Test
    void schemaStatementsRunOneByOneAndMatchTheScript() throws Exception {
        assertThat(JobSchema.schemaStatements())
                .hasSize(9)
                .allSatisfy(s -> assertThat(JobSchema.schemaSql()).contains(s))
                .allSatisfy(s -> assertThat(s).doesNotContain("--").doesNotEndWith(";"));
        assertThat(JobSchema.schemaStatements().getFirst()).startsWith("CREATE TABLE jobs");
        try (Connection c = DriverManager.getConnection(h2Url());
                Statement s = c.createStatement()) {
            for (String statement : JobSchema.schemaStatements()) {
                s.execute(statement);
            }
            for (String table : new String[] {"jobs", "job_results", "job_kinds"}) {
                assertThat(s.executeQuery("SELECT COUNT(*) FROM " + table).next())
                        .isTrue();
            }
        }
    }

    @Test
    void upgradeFromVersionOneAddsTheOwnerIndexAndChangesNothingOnACurrentSchema() throws Exception {
        assertThat(JobSchema.VERSION).isEqualTo(2);
        assertThat(JobSchema.upgradeStatements(1))
                .containsExactly("CREATE INDEX IF NOT EXISTS jobs_owner_created ON jobs (owner, created_at, id)");
        assertThat(JobSchema.upgradeStatements(2)).isEmpty();
        assertThatThrownBy(() -> JobSchema.upgradeStatements(0)).hasMessageContaining("fromVersion");
        assertThatThrownBy(() -> JobSchema.upgradeStatements(3)).hasMessageContaining("fromVersion");
        try (Connection c = DriverManager.getConnection(h2Url())) {
            upgradeFromVersionOne(c);
        }
        try (ThrowawayDatabase pg = ThrowawayDatabase.postgres();
                Connection c = pg.dataSource().getConnection()) {
            upgradeFromVersionOne(c);
        }
    }

    /** Makes the version 1 tables (the current ones without the version 2 index), upgrades, and upgrades again. */
    private static void upgradeFromVersionOne(Connection c) throws Exception {
        try (Statement s = c.createStatement()) {
            s.execute(JobSchema.schemaSql());
            s.execute("DROP INDEX jobs_owner_created");
            for (int round = 0; round < 2; round++) {
                for (String statement : JobSchema.upgradeStatements(1)) {
                    s.execute(statement);
                }
            }
        }
        assertThat(SchemaInspection.indexNames(c, "jobs")).contains("jobs_owner_created");
    }

    private static String h2Url() {
        return "jdbc:h2:mem:schema_" + UUID.randomUUID().toString().replace("-", "") + ";MODE=PostgreSQL";
    }
}
