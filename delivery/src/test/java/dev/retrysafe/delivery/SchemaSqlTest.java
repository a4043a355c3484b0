package dev.retrysafe.delivery;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class SchemaSqlTest {

    @Test
    void schemaStatementsRunOneByOneAndMatchTheScript() throws Exception {
        assertThat(DeliverySchema.schemaStatements()).hasSize(10)
                .allSatisfy(s -> assertThat(DeliverySchema.schemaSql()).contains(s));
        assertThat(DeliverySchema.schemaStatements().getFirst()).startsWith("CREATE TABLE webhook_endpoints");
        String url = "jdbc:h2:mem:schema_" + UUID.randomUUID().toString().replace("-", "") + ";MODE=PostgreSQL";
        try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
            for (String statement : DeliverySchema.schemaStatements()) {
                s.execute(statement);
            }
            for (String table : new String[] {"webhook_endpoints", "webhook_endpoint_event_types", "deliveries",
                    "delivery_attempts"}) {
                assertThat(s.executeQuery("SELECT COUNT(*) FROM " + table).next()).isTrue();
            }
        }
    }
}
