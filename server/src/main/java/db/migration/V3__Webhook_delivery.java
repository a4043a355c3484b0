package db.migration;

import dev.retrysafe.delivery.DeliverySchema;
import java.sql.Statement;
import org.flywaydb.core.api.migration.BaseJavaMigration;
import org.flywaydb.core.api.migration.Context;

/**
 * Creates the webhook endpoint, delivery and attempt tables from {@link DeliverySchema#schemaStatements()},
 * so the delivery module stays the single owner of its DDL while the server versions when it is applied.
 */
public final class V3__Webhook_delivery extends BaseJavaMigration {

    /** Flyway instantiates migrations reflectively. */
    public V3__Webhook_delivery() {
    }

    @Override
    public void migrate(Context context) throws Exception {
        try (Statement s = context.getConnection().createStatement()) {
            for (String sql : DeliverySchema.schemaStatements()) {
                s.execute(sql);
            }
        }
    }
}
