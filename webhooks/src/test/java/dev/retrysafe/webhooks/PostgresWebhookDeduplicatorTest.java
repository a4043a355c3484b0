package dev.retrysafe.webhooks;

import dev.retrysafe.testkit.ThrowawayDatabase;

/** The JDBC de-duplicator on PostgreSQL; fails (never skips) when PostgreSQL is unreachable. */
class PostgresWebhookDeduplicatorTest extends JdbcWebhookDeduplicatorContract {

    @Override
    protected ThrowawayDatabase openDatabase() {
        return ThrowawayDatabase.postgres();
    }
}
