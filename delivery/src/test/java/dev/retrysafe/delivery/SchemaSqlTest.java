package dev.retrysafe.delivery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.retrysafe.testkit.SchemaInspection;
import dev.retrysafe.testkit.ThrowawayDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class SchemaSqlTest {

    @Test
    void schemaStatementsRunOneByOneAndMatchTheScript() throws Exception {
        assertThat(DeliverySchema.schemaStatements())
                .hasSize(13 + 1 - 1) // + 1: the retention index (deliveries_created); - 1: version 5 has no token index
                .allSatisfy(s -> assertThat(DeliverySchema.schemaSql()).contains(s));
        assertThat(DeliverySchema.schemaStatements().getFirst()).startsWith("CREATE TABLE webhook_endpoints");
        try (Connection c = DriverManager.getConnection(h2Url());
                Statement s = c.createStatement()) {
            for (String statement : DeliverySchema.schemaStatements()) {
                s.execute(statement);
            }
            for (String table :
                    new String[] {"webhook_endpoints", "webhook_endpoint_event_types", "deliveries", "delivery_attempts"
                    }) {
                assertThat(s.executeQuery("SELECT COUNT(*) FROM " + table).next())
                        .isTrue();
            }
        }
    }

    @Test
    void upgradeFromVersionOneAddsEveryLaterColumnAndIndexAndChangesNothingOnACurrentSchema() throws Exception {
        try (Connection c = DriverManager.getConnection(h2Url())) {
            upgradeFromVersionOne(c);
        }
        try (ThrowawayDatabase pg = ThrowawayDatabase.postgres();
                Connection c = pg.dataSource().getConnection()) {
            upgradeFromVersionOne(c);
        }
    }

    @Test
    void upgradeStatementsExistForEveryEarlierVersionOnly() {
        assertThat(DeliverySchema.VERSION).isEqualTo(5);
        assertThat(DeliverySchema.upgradeStatements(1))
                .hasSize(11 + 1 + 3); // + 1: the retention index (deliveries_created); + 3: version 5's indexes
        assertThat(DeliverySchema.upgradeStatements(1).subList(0, 2))
                .allSatisfy(s -> assertThat(s).startsWith("ALTER TABLE webhook_endpoints ADD COLUMN IF NOT EXISTS"));
        assertThat(DeliverySchema.upgradeStatements(2))
                .startsWith("CREATE INDEX IF NOT EXISTS delivery_attempts_started ON delivery_attempts (started_at)");
        assertThat(DeliverySchema.upgradeStatements(3))
                .hasSize(8 + 1 + 3) // + 1: the retention index; + 3: version 5
                .allSatisfy(s -> assertThat(s)
                        .containsPattern(
                                "^((ALTER TABLE (webhook_endpoints|deliveries) ADD COLUMN|CREATE (INDEX|TABLE))"
                                        + " IF NOT EXISTS|DROP INDEX IF EXISTS)"));
        assertThat(DeliverySchema.upgradeStatements(4))
                .containsExactly(
                        "DROP INDEX IF EXISTS deliveries_status_endpoint",
                        "CREATE INDEX IF NOT EXISTS deliveries_endpoint_due ON deliveries"
                                + " (status, endpoint_id, next_attempt_at, id)",
                        "DROP INDEX IF EXISTS deliveries_lease_token");
        assertThat(DeliverySchema.upgradeStatements(DeliverySchema.VERSION)).isEmpty();
        assertThatThrownBy(() -> DeliverySchema.upgradeStatements(0)).hasMessageContaining("fromVersion");
        assertThatThrownBy(() -> DeliverySchema.upgradeStatements(6)).hasMessageContaining("fromVersion");
    }

    /** Makes the version 1 tables (the current ones without the columns and indexes of versions 2 to 5), upgrades, and upgrades again. */
    private static void upgradeFromVersionOne(Connection c) throws Exception {
        try (Statement s = c.createStatement()) {
            s.execute(DeliverySchema.schemaSql());
            s.execute("ALTER TABLE webhook_endpoints DROP COLUMN rate_limit");
            s.execute("ALTER TABLE webhook_endpoints DROP COLUMN rate_next_slot_ns");
            s.execute("DROP INDEX delivery_attempts_started");
            for (String column : List.of("paused_at", "ordered", "custom_headers")) {
                s.execute("ALTER TABLE webhook_endpoints DROP COLUMN " + column);
            }
            s.execute("DROP INDEX deliveries_ordering");
            s.execute("ALTER TABLE deliveries DROP COLUMN ordering_key");
            s.execute("ALTER TABLE deliveries DROP COLUMN traceparent");
            s.execute("DROP INDEX deliveries_created"); // retention (version 4)
            s.execute("ALTER TABLE deliveries DROP COLUMN ordering_seq");
            s.execute("DROP TABLE delivery_ordering_keys");
            s.execute("DROP INDEX deliveries_endpoint_due"); // version 5 replaced the index of version 1
            s.execute("CREATE INDEX deliveries_status_endpoint ON deliveries (status, endpoint_id, lease_expires_at)");
            s.execute("CREATE INDEX deliveries_lease_token ON deliveries (lease_token)");
            s.execute("INSERT INTO webhook_endpoints (id, account_id, url, description, enabled, secret, created_at, "
                    + "updated_at) VALUES ('we_1', 'acct_1', 'https://a.example.com/', '', TRUE, 'whsec_x', 1, 1)");
            for (int round = 0; round < 2; round++) {
                for (String statement : DeliverySchema.upgradeStatements(1)) {
                    s.execute(statement);
                }
            }
            try (ResultSet r = s.executeQuery(
                    "SELECT rate_limit, rate_next_slot_ns, paused_at, ordered, custom_headers FROM webhook_endpoints")) {
                assertThat(r.next()).isTrue();
                assertThat(r.getObject(1)).as("an old endpoint has no limit").isNull();
                assertThat(r.getObject(2)).isNull();
                assertThat(r.getObject(3)).as("an old endpoint is not paused").isNull();
                assertThat(r.getBoolean(4)).as("an old endpoint is not ordered").isFalse();
                assertThat(r.getObject(5)).isNull();
            }
            try (ResultSet r = s.executeQuery("SELECT ordering_key, traceparent, ordering_seq FROM deliveries")) {
                assertThat(r.next()).as("no deliveries yet").isFalse();
            }
        }
        assertThat(SchemaInspection.indexNames(c, "delivery_attempts")).contains("delivery_attempts_started");
        assertThat(SchemaInspection.indexNames(c, "deliveries")).contains("deliveries_created"); // retention
        assertThat(SchemaInspection.indexNames(c, "deliveries")).contains("deliveries_ordering");
        assertThat(SchemaInspection.indexNames(c, "deliveries"))
                .contains("deliveries_endpoint_due")
                .doesNotContain("deliveries_status_endpoint", "deliveries_lease_token");
        assertThat(SchemaInspection.indexNames(c, "delivery_ordering_keys")).isNotEmpty();
    }

    private static String h2Url() {
        return "jdbc:h2:mem:schema_" + UUID.randomUUID().toString().replace("-", "") + ";MODE=PostgreSQL";
    }
}
