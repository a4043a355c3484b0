package db.migration;

import dev.retrysafe.delivery.DeliverySchema;
import java.sql.Statement;
import org.flywaydb.core.api.migration.BaseJavaMigration;
import org.flywaydb.core.api.migration.Context;

/**
 * Brings the webhook tables from delivery schema version 1 to the current one (version 2: the
 * per-endpoint rate limit) with {@link DeliverySchema#upgradeStatements(int)}. V3 runs the
 * delivery module's current script, so a database created after the change already has the
 * columns; the upgrade statements are idempotent and change nothing there.
 */
public final class V5__Webhook_rate_limit extends BaseJavaMigration {

    /** Flyway instantiates migrations reflectively. */
    public V5__Webhook_rate_limit() {
    }

    @Override
    public void migrate(Context context) throws Exception {
        try (Statement s = context.getConnection().createStatement()) {
            for (String sql : DeliverySchema.upgradeStatements(1)) {
                s.execute(sql);
            }
        }
    }
}
