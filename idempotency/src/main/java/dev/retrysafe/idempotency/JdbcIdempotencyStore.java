package dev.retrysafe.idempotency;

import java.time.Instant;
import javax.sql.DataSource;

/** STUB (API only; to be completed). The JDBC store for H2 and PostgreSQL. */
public final class JdbcIdempotencyStore implements IdempotencyStore {

    private JdbcIdempotencyStore() {
    }

    /** A store over {@code dataSource}, whose schema {@link #schemaSql()} must have created. */
    public static JdbcIdempotencyStore create(DataSource dataSource) {
        return new JdbcIdempotencyStore();
    }

    /** The DDL of the store's table, runnable unchanged on H2 (PostgreSQL mode) and PostgreSQL. */
    public static String schemaSql() {
        return "CREATE TABLE idempotency_keys (account VARCHAR(64) NOT NULL)";
    }

    @Override
    public int purge(Instant cutoff) {
        return 0;
    }
}
