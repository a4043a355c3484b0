package db.migration;

import dev.retrysafe.delivery.DeliverySchema;
import dev.retrysafe.jobs.JobSchema;
import java.sql.Statement;
import org.flywaydb.core.api.migration.BaseJavaMigration;
import org.flywaydb.core.api.migration.Context;

/**
 * The indexes the dashboard's reads need: delivery schema version 3 (attempts by start time, for
 * endpoint health and hourly statistics) and jobs schema version 2 (an account's jobs newest
 * first). A database created after the change got them from V3 and V4 already; the upgrade
 * statements are idempotent and change nothing there.
 */
public final class V6__Dashboard_indexes extends BaseJavaMigration {

    /** Flyway instantiates migrations reflectively. */
    public V6__Dashboard_indexes() {
    }

    @Override
    public void migrate(Context context) throws Exception {
        try (Statement s = context.getConnection().createStatement()) {
            for (String sql : DeliverySchema.upgradeStatements(2)) {
                s.execute(sql);
            }
            for (String sql : JobSchema.upgradeStatements(1)) {
                s.execute(sql);
            }
        }
    }
}
