package db.migration;

import dev.retrysafe.idempotency.JdbcIdempotencyStore;
import java.sql.Statement;
import org.flywaydb.core.api.migration.BaseJavaMigration;
import org.flywaydb.core.api.migration.Context;

/**
 * Creates the idempotency store's table from {@link JdbcIdempotencyStore#schemaStatements()}, so
 * the library stays the single owner of its DDL, and of how it is split into statements, while
 * the server versions when it is applied.
 */
public final class V2__Idempotency_keys extends BaseJavaMigration {

    /** Flyway instantiates migrations reflectively. */
    public V2__Idempotency_keys() {
    }

    @Override
    public void migrate(Context context) throws Exception {
        try (Statement s = context.getConnection().createStatement()) {
            for (String sql : JdbcIdempotencyStore.schemaStatements()) {
                s.execute(sql);
            }
        }
    }
}
