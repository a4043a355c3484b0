package dev.retrysafe.servlet;

import dev.retrysafe.testkit.CountingDataSource;
import java.sql.Connection;
import java.sql.Statement;
import java.util.UUID;

/** The filter end to end on an in-memory H2 database in PostgreSQL mode. */
class H2IdempotencyFilterTest extends IdempotencyFilterContract {

    private CountingDataSource h2;

    @Override
    protected CountingDataSource openDatabase() {
        h2 = new CountingDataSource("jdbc:h2:mem:filter_" + UUID.randomUUID().toString().replace("-", "")
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
