package dev.retrysafe.webhooks;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class SchemaSqlTest {

    @Test
    void schemaIsTwoStatementsThatAlsoRunOneByOne() throws Exception {
        assertThat(JdbcWebhookDeduplicator.schemaStatements()).hasSize(2);
        assertThat(JdbcWebhookDeduplicator.schemaStatements().get(0)).startsWith("CREATE TABLE received_webhooks");
        assertThat(JdbcWebhookDeduplicator.schemaStatements().get(1)).startsWith("CREATE INDEX");

        String url = "jdbc:h2:mem:schema_" + UUID.randomUUID().toString().replace("-", "") + ";MODE=PostgreSQL";
        try (Connection c = DriverManager.getConnection(url);
                Statement s = c.createStatement()) {
            for (String statement : JdbcWebhookDeduplicator.schemaStatements()) {
                s.execute(statement);
            }
            assertThat(s.executeUpdate("INSERT INTO received_webhooks (webhook_id, seen_at) VALUES ('" + "x".repeat(255)
                            + "', 0)"))
                    .isEqualTo(1);
        }
    }
}
