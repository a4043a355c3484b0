package dev.retrysafe.server.db;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.retrysafe.server.config.DatabaseConfig;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.FlywayException;
import org.flywaydb.core.api.configuration.FluentConfiguration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A connection pool on the configured database, with its schema migrated. Closing it closes
 * every connection. This class is threadsafe.
 */
public final class Database implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Database.class);

    private final HikariDataSource pool;

    private Database(HikariDataSource pool) {
        this.pool = pool;
    }

    /**
     * A pool of {@code size} connections named {@code name} (it shows in thread names and logs).
     * Nothing is connected yet; the first use connects.
     */
    public static Database open(DatabaseConfig config, Path dataDir, String name, int size) {
        return open(config, dataDir, name, size, Durability.SYNCHRONOUS);
    }

    /** How a pool's commits reach the disk. */
    public enum Durability {
        /** A commit returns once it is on disk (the database's default). */
        SYNCHRONOUS,
        /**
         * A commit may return before it is flushed (PostgreSQL {@code synchronous_commit = off};
         * no effect on H2). Only for writes whose loss in a database crash is harmless: a later
         * synchronous commit flushes every earlier one, because the write-ahead log is sequential.
         */
        MAY_LOSE_UNFLUSHED
    }

    /** Like {@link #open(DatabaseConfig, Path, String, int)}, with the given commit durability. */
    public static Database open(DatabaseConfig config, Path dataDir, String name, int size, Durability durability) {
        HikariConfig hc = new HikariConfig();
        if (durability == Durability.MAY_LOSE_UNFLUSHED
                && config.jdbcUrl(dataDir).startsWith("jdbc:postgresql:")) {
            hc.setConnectionInitSql("SET synchronous_commit = off");
        }
        hc.setPoolName(name);
        hc.setJdbcUrl(config.jdbcUrl(dataDir));
        if (!config.user().isEmpty()) {
            hc.setUsername(config.user());
        }
        if (!config.password().isEmpty()) {
            hc.setPassword(config.password());
        }
        if (config.jdbcUrl(dataDir).startsWith("jdbc:postgresql:")) {
            // no outbound call without a bound: connecting gives up after 5 s, and a read that
            // hears nothing for 60 s (a dead server or network) fails instead of hanging a
            // request or a worker forever; parameters in the URL take precedence over these
            hc.addDataSourceProperty("connectTimeout", "5");
            hc.addDataSourceProperty("socketTimeout", "60");
            hc.addDataSourceProperty("tcpKeepAlive", "true");
        }
        hc.setMaximumPoolSize(size);
        hc.setMinimumIdle(Math.min(2, size));
        hc.setConnectionTimeout(Duration.ofSeconds(5).toMillis());
        // start even when the database is down, so that /health answers and /ready explains
        hc.setInitializationFailTimeout(-1);
        return new Database(new HikariDataSource(hc));
    }

    /**
     * Applies every pending migration of {@code db/migration} (SQL files), after realigning the
     * history of a database whose V2 to V6 ran as the Java classes they were ({@link FormerJavaMigrations}).
     */
    public void migrate() {
        FluentConfiguration flyway = Flyway.configure().dataSource(pool).locations("classpath:db/migration");
        try {
            int realigned = FormerJavaMigrations.realign(pool, flyway);
            if (realigned > 0) {
                LOG.info("migration history: V2 to V6 recorded as SQL files now ({} rows realigned)", realigned);
            }
        } catch (SQLException e) {
            throw new FlywayException("cannot realign the history of the former Java migrations V2 to V6", e);
        }
        flyway.load().migrate();
    }

    /** The pooled data source. */
    public DataSource dataSource() {
        return pool;
    }

    /**
     * Requests waiting for a connection of this pool now: the load the server sheds by (each of
     * them waits at least as long as a request holds its connection). 0 before the pool started.
     */
    public int waitingForConnection() {
        var bean = pool.getHikariPoolMXBean();
        return bean == null ? 0 : bean.getThreadsAwaitingConnection();
    }

    /** The most connections this pool holds. */
    public int poolSize() {
        return pool.getMaximumPoolSize();
    }

    /** Whether a connection can be had and answers within {@code timeout}. */
    public boolean reachable(Duration timeout) {
        try (Connection c = pool.getConnection()) {
            return c.isValid((int) Math.max(1, timeout.toSeconds()));
        } catch (SQLException e) {
            return false;
        }
    }

    @Override
    public void close() {
        pool.close();
    }
}
