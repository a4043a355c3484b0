package dev.retrysafe.idempotency;

import dev.retrysafe.testkit.CountingDataSource;
import java.sql.Connection;
import java.sql.Statement;
import java.util.UUID;

/** The store contract on an in-memory H2 database in PostgreSQL mode. */
class H2IdempotencyStoreTest extends IdempotencyStoreContract {

    private CountingDataSource h2;

    @Override
    protected CountingDataSource openDatabase() {
        h2 = new CountingDataSource("jdbc:h2:mem:idem_" + UUID.randomUUID().toString().replace("-", "")
                + ";MODE=PostgreSQL;DB_CLOSE_DELAY=-1", "");
        return h2;
    }

    @Override
    protected void closeDatabase() throws Exception {
        try (Connection c = h2.getConnection(); Statement s = c.createStatement()) {
            s.execute("SHUTDOWN");
        }
    }
}
