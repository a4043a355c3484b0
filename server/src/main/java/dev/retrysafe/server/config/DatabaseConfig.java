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
 * @param poolSize connections kept for requests, 1..1000
 */
public record DatabaseConfig(@Nullable String url, String user, String password, int poolSize) {

    /** Checks every value. */
    public DatabaseConfig {
        ConfigException.check(url == null || url.startsWith("jdbc:postgresql:") || url.startsWith("jdbc:h2:"),
                "database.url", "must start with jdbc:postgresql:, postgresql:// or jdbc:h2:, was '" + url + "'");
        ConfigException.check(poolSize >= 1 && poolSize <= 1000,
                "database.pool_size", "must be between 1 and 1000, was " + poolSize);
    }

    /** Whether this is the embedded H2 database under the data folder. */
    public boolean embedded() {
        return url == null;
    }

    /** The JDBC URL to connect to, the embedded one resolved against {@code dataDir}. */
    public String jdbcUrl(Path dataDir) {
        if (url != null) {
            return url;
        }
        // AUTO_SERVER lets a second process (create-account) open the file while the server runs;
        // PostgreSQL mode and lower-case names let the same migrations run on both databases.
        return "jdbc:h2:file:" + dataDir.toAbsolutePath().normalize().resolve("retrysafe")
                + ";MODE=PostgreSQL;DATABASE_TO_LOWER=TRUE;DEFAULT_NULL_ORDERING=HIGH;AUTO_SERVER=TRUE";
    }

    /** The URL with any password removed, for logs. */
    public String describe(Path dataDir) {
        return jdbcUrl(dataDir).replaceAll("(?i)password=[^&;]*", "password=***");
    }
}
