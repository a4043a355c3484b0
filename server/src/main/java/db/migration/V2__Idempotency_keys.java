package db.migration;

import dev.retrysafe.idempotency.JdbcIdempotencyStore;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.flywaydb.core.api.migration.BaseJavaMigration;
import org.flywaydb.core.api.migration.Context;

/**
 * Creates the idempotency store's table from {@link JdbcIdempotencyStore#schemaSql()}, so the
 * library stays the single owner of its DDL while the server versions when it is applied.
 */
public final class V2__Idempotency_keys extends BaseJavaMigration {

    /** Flyway instantiates migrations reflectively. */
    public V2__Idempotency_keys() {
    }

    @Override
    public void migrate(Context context) throws Exception {
        try (Statement s = context.getConnection().createStatement()) {
            for (String sql : statements(JdbcIdempotencyStore.schemaSql())) {
                s.execute(sql);
            }
        }
    }

    /** Splits a script on semicolons that end a line; the DDL holds no semicolons elsewhere. Package-private for tests. */
    static List<String> statements(String script) {
        List<String> out = new ArrayList<>();
        for (String part : script.split(";\\s*(\\R|$)")) {
            // a chunk of only comments is no statement, and some drivers reject an empty one
            if (!part.replaceAll("(?m)^\\s*--.*$", "").isBlank()) {
                out.add(part.strip());
            }
        }
        return out;
    }
}
