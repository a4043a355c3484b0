package dev.retrysafe.server.db;

import dev.retrysafe.server.config.DatabaseConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/** The embedded database: an H2 file in a data folder, as {@code ./run} makes it. */
class FormerJavaMigrationsH2Test extends FormerJavaMigrationsContract {

    @TempDir
    Path dataDirs;

    @Override
    protected Database newDatabase() throws Exception {
        Path dataDir = Files.createTempDirectory(dataDirs, "data");
        return Database.open(new DatabaseConfig(null, "", "", 2), dataDir, "former-migrations", 2);
    }
}
