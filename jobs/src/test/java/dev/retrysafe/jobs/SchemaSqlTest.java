package dev.retrysafe.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class SchemaSqlTest {

    @Test
    void schemaStatementsRunOneByOneAndMatchTheScript() throws Exception {
        assertThat(JobSchema.schemaStatements()).hasSize(8)
                .allSatisfy(s -> assertThat(JobSchema.schemaSql()).contains(s))
                .allSatisfy(s -> assertThat(s).doesNotContain("--").doesNotEndWith(";"));
        assertThat(JobSchema.schemaStatements().getFirst()).startsWith("CREATE TABLE jobs");
        String url = "jdbc:h2:mem:schema_" + UUID.randomUUID().toString().replace("-", "") + ";MODE=PostgreSQL";
        try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
            for (String statement : JobSchema.schemaStatements()) {
                s.execute(statement);
            }
            for (String table : new String[] {"jobs", "job_results", "job_kinds"}) {
                assertThat(s.executeQuery("SELECT COUNT(*) FROM " + table).next()).isTrue();
            }
        }
    }
}
