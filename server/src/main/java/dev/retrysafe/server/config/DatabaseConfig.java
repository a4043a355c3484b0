package dev.retrysafe.server.config;

import java.nio.file.Path;
import org.jspecify.annotations.Nullable;

/**
 * Where the data lives.
 *
 * @param url JDBC URL ({@code jdbc:postgresql:} or {@code jdbc:h2:}), or {@code null} for the
 *     embedded H2 file database under the data folder
 * @param user database user (empty for none)
 * @param password database password (empty for none)
 * @param poolSize connections kept for requests, 2..1000 (the migrations at start take two)
 */
public record DatabaseConfig(@Nullable String url, String user, String password, int poolSize) {

    /** Checks every value. */
    public DatabaseConfig {
        ConfigException.check(
                url == null || url.startsWith("jdbc:postgresql:") || url.startsWith("jdbc:h2:"),
                "database.url",
                "must start with jdbc:postgresql:, postgresql:// or jdbc:h2:, was '" + url + "'");
        ConfigException.check(
                poolSize >= 2 && poolSize <= 1000,
                "database.pool_size",
                "must be between 2 and 1000 (the migrations at start take two connections), was " + poolSize);
    }

    /**
     * Connections for requests when {@code database.pool_size} is empty and the database is a
     * server of its own: PostgreSQL (each connection is a server process) or an H2 server reached
     * over the network ({@code jdbc:h2:tcp:}, {@code jdbc:h2:ssl:}), where the measurement behind
     * {@link #H2_DEFAULT_POOL_SIZE} does not apply.
     */
    public static final int POSTGRES_DEFAULT_POOL_SIZE = 10;
    /**
     * Connections for requests on H2 when {@code database.pool_size} is empty. An H2 connection is a
     * session in this process, and H2 writes the commits that arrive while it stores one together
     * in the next: with more requests inside their transactions at once, each store carries more of
     * them (bench/payments/HISTORY.md, payments on H2 at 64 concurrent clients, without / with keys: 10
     * connections 2,803 / 1,848 per second, 32 connections 4,484 / 3,195, 64 connections 5,755 /
     * 4,269).
     */
    public static final int H2_DEFAULT_POOL_SIZE = 64;

    /** The pool size for {@code url} when none is set: by where the database runs. */
    public static int defaultPoolSize(@Nullable String url) {
        boolean server = url != null
                && (url.startsWith("jdbc:postgresql:")
                        || url.startsWith("jdbc:h2:tcp:")
                        || url.startsWith("jdbc:h2:ssl:"));
        return server ? POSTGRES_DEFAULT_POOL_SIZE : H2_DEFAULT_POOL_SIZE;
    }

    /** Whether this is a PostgreSQL database. */
    public boolean postgres() {
        return url != null && url.startsWith("jdbc:postgresql:");
    }

    /** Whether this is the embedded H2 database in the data folder (no URL set). */
    public boolean embedded() {
        return url == null;
    }

    /** The JDBC URL to connect to, the embedded one resolved against {@code dataDir}. */
    public String jdbcUrl(Path dataDir) {
        if (url != null) {
            return url;
        }
        return "jdbc:h2:file:" + embeddedPath(dataDir) + EMBEDDED_SETTINGS;
    }

    /**
     * The URL of the embedded database through the loopback TCP server that a running Retrysafe
     * server opens on {@code port}, so that one-off commands (create-account) can use the file
     * while the server holds it.
     */
    public String embeddedTcpUrl(Path dataDir, int port) {
        return "jdbc:h2:tcp://127.0.0.1:" + port + "/" + embeddedPath(dataDir) + EMBEDDED_SETTINGS;
    }

    // PostgreSQL mode and lower-case names let the same migrations run on both databases.
    // DB_CLOSE_ON_EXIT=FALSE: H2 must not close the database from its own shutdown hook while our
    // graceful shutdown is still finishing in-flight requests; closing the pools closes it.
    // WRITE_DELAY=0: H2 has no redo log and by default writes commits to the file up to 500 ms
    // later, so a kill -9 lost payments already answered 201 (found by CrashSafetyTest).
    // LOCK_TIMEOUT=10000: a row lock wait (two requests claiming one new key) may take longer
    // than H2's default under load; giving up turns into a 500 for the client.
    private static final String EMBEDDED_SETTINGS = ";MODE=PostgreSQL;DATABASE_TO_LOWER=TRUE"
            + ";DEFAULT_NULL_ORDERING=HIGH;DB_CLOSE_ON_EXIT=FALSE;WRITE_DELAY=0;LOCK_TIMEOUT=10000";

    private static Path embeddedPath(Path dataDir) {
        return dataDir.toAbsolutePath().normalize().resolve("retrysafe");
    }

    /** The URL with any password removed, for logs. */
    public String describe(Path dataDir) {
        return jdbcUrl(dataDir).replaceAll("(?i)password=[^&;]*", "password=***");
    }
}
