package dev.retrysafe.server.db;

import static org.assertj.core.api.Assertions.assertThat;

import dev.retrysafe.server.TestServer;
import dev.retrysafe.testkit.PostgresTestDatabase;
import dev.retrysafe.testkit.SchemaInspection;
import java.sql.Connection;
import java.sql.Statement;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A database migrated before V6 (without the dashboard's indexes) gets them when a server of
 * this version starts; a database created now has them from V3 and V4.
 */
class V6DashboardIndexesTest {

    @Test
    void aDatabaseFromBeforeV6GetsTheIndexesOnStart() throws Exception {
        try (PostgresTestDatabase database = PostgresTestDatabase.create()) {
            // given a database as the previous version left it: migrated to V5, without the indexes
            TestServer.postgres(database).start().close();
            try (Connection c = database.connect();
                    Statement s = c.createStatement()) {
                assertThat(SchemaInspection.indexNames(c, "delivery_attempts")).contains("delivery_attempts_started");
                assertThat(SchemaInspection.indexNames(c, "jobs")).contains("jobs_owner_created");
                s.execute("DROP INDEX delivery_attempts_started");
                s.execute("DROP INDEX jobs_owner_created");
                // and without what came after V6 (V7, the stream positions; V8, the stream leases; V9,
                // the rate-limit versions; V10, webhook delivery v2; V11, the due index by endpoint), as that version
                // had none of them
                s.execute("ALTER TABLE events DROP COLUMN ordering_key");
                s.execute("ALTER TABLE events DROP COLUMN traceparent");
                for (String column : List.of("paused_at", "ordered", "custom_headers")) {
                    s.execute("ALTER TABLE webhook_endpoints DROP COLUMN " + column);
                }
                s.execute("DROP INDEX deliveries_ordering");
                s.execute("ALTER TABLE deliveries DROP COLUMN ordering_key");
                s.execute("ALTER TABLE deliveries DROP COLUMN traceparent");
                // V10, retention
                s.execute("DROP INDEX deliveries_created");
                s.execute("DROP INDEX events_created");
                // V10, ordering
                s.execute("ALTER TABLE deliveries DROP COLUMN ordering_seq");
                s.execute("DROP TABLE delivery_ordering_keys");
                // V11, the due deliveries by endpoint (V3's indexes again)
                s.execute("DROP INDEX deliveries_endpoint_due");
                s.execute(
                        "CREATE INDEX deliveries_status_endpoint ON deliveries (status, endpoint_id, lease_expires_at)");
                s.execute("CREATE INDEX deliveries_lease_token ON deliveries (lease_token)");
                s.execute("DROP TABLE rate_limit_announcements");
                s.execute("ALTER TABLE accounts DROP COLUMN rate_limit_version");
                s.execute("DROP TABLE stream_leases");
                s.execute("DROP TABLE event_streams");
                s.execute("DROP INDEX events_account_seq");
                s.execute("ALTER TABLE events DROP COLUMN seq");
                s.execute("ALTER TABLE events DROP COLUMN written_seq");
                s.execute("DELETE FROM flyway_schema_history WHERE version IN ('6', '7', '8', '9', '10', '11')");
            }

            // when this version starts on it
            TestServer.postgres(database).start().close();

            // then V6 made them
            try (Connection c = database.connect();
                    Statement s = c.createStatement()) {
                assertThat(SchemaInspection.indexNames(c, "delivery_attempts")).contains("delivery_attempts_started");
                assertThat(SchemaInspection.indexNames(c, "jobs")).contains("jobs_owner_created");
                try (var r =
                        s.executeQuery("SELECT COUNT(*) FROM flyway_schema_history WHERE version = '6' AND success")) {
                    assertThat(r.next()).isTrue();
                    assertThat(r.getInt(1)).isEqualTo(1);
                }
            }
        }
    }
}
