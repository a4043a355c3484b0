package dev.retrysafe.server.db;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.retrysafe.server.config.DatabaseConfig;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** Every connection to PostgreSQL is opened with bounds on connecting and on silent reads. */
class DatabaseTimeoutsTest {

    @Test
    void postgresConnectionsGiveUpOnADeadServerInsteadOfHanging() {
        // nothing listens on port 1: the pool only configures here, it never needs to connect
        DatabaseConfig config = new DatabaseConfig("jdbc:postgresql://127.0.0.1:1/none", "postgres", "", 2);
        try (Database db = Database.open(config, Path.of("."), "timeouts-test", 2)) {
            HikariDataSource pool = (HikariDataSource) db.dataSource();

            assertThat(pool.getDataSourceProperties())
                    .containsEntry("connectTimeout", "5")
                    .containsEntry("socketTimeout", "60")
                    .containsEntry("tcpKeepAlive", "true");
            assertThat(pool.getConnectionTimeout()).isEqualTo(5_000);
        }
    }
}
