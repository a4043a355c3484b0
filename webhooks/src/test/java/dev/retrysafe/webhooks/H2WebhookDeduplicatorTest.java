package dev.retrysafe.webhooks;

import dev.retrysafe.testkit.ThrowawayDatabase;

/** The JDBC de-duplicator on an in-memory H2 database in PostgreSQL mode. */
class H2WebhookDeduplicatorTest extends JdbcWebhookDeduplicatorContract {

    @Override
    protected ThrowawayDatabase openDatabase() {
        return ThrowawayDatabase.h2("webhooks");
    }
}
