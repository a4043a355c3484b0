package dev.retrysafe.idempotency;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class SchemaSqlTest {

    @Test
    void schemaSqlIsTwoStatementsThatAlsoRunOneByOne() throws Exception {
        assertThat(JdbcIdempotencyStore.schemaStatements())
                .hasSize(2)
                .first()
                .asString()
                .startsWith("CREATE TABLE idempotency_keys");
        assertThat(JdbcIdempotencyStore.schemaStatements().get(1)).startsWith("CREATE INDEX");
        assertThat(JdbcIdempotencyStore.schemaSql())
                .contains(JdbcIdempotencyStore.schemaStatements().get(0));

        String url = "jdbc:h2:mem:schema_" + UUID.randomUUID().toString().replace("-", "") + ";MODE=PostgreSQL";
        try (Connection c = DriverManager.getConnection(url);
                Statement s = c.createStatement()) {
            for (String statement : JdbcIdempotencyStore.schemaStatements()) {
                s.execute(statement);
            }
            try (ResultSet r = s.executeQuery("SELECT COUNT(*) FROM idempotency_keys")) {
                assertThat(r.next()).isTrue();
                assertThat(r.getInt(1)).isZero();
            }
        }
    }
}
