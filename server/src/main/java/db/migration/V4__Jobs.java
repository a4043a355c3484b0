package db.migration;

import dev.retrysafe.jobs.JobSchema;
import java.sql.Statement;
import org.flywaydb.core.api.migration.BaseJavaMigration;
import org.flywaydb.core.api.migration.Context;

/**
 * Creates the job tables from {@link JobSchema#schemaStatements()}, so the jobs module stays the
 * single owner of its DDL while the server versions when it is applied, and the index that
 * payment reports read an account's payments by creation time with.
 */
public final class V4__Jobs extends BaseJavaMigration {

    private static final String REPORT_INDEX = "CREATE INDEX payments_account_created ON payments (account_id, created_at)";

    /** Flyway instantiates migrations reflectively. */
    public V4__Jobs() {
    }

    @Override
    public void migrate(Context context) throws Exception {
        try (Statement s = context.getConnection().createStatement()) {
            for (String sql : JobSchema.schemaStatements()) {
                s.execute(sql);
            }
            s.execute(REPORT_INDEX);
        }
    }
}
