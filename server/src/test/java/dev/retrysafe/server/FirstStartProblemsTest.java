package dev.retrysafe.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.retrysafe.server.config.ConfigLoader;
import dev.retrysafe.server.config.ServerConfig;
import dev.retrysafe.server.db.DatabaseUnavailableException;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The embedded data folder of a running server ends a second start with one line that says what
 * to do, not with the migration tool's error several causes deep (issue 33, the server's first
 * hour). The file lock H2 takes is per process: {@code FirstHourTest} shows it with two processes.
 */
class FirstStartProblemsTest {

    @TempDir
    Path dataDir;

    private ServerConfig config() {
        return ConfigLoader.load(null, Map.of("RETRYSAFE_DATA_DIR", dataDir.toString(), "PORT", "0"));
    }

    private static RetrysafeServer start(ServerConfig config) throws Exception {
        return RetrysafeServer.start(
                config, Clock.systemUTC(), new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
    }

    @Test
    void aSecondServerOnTheFolderOfARunningOneIsRefusedInOneLine() throws Exception {
        try (TestServer running = TestServer.h2(dataDir).start()) {
            assertThatThrownBy(() -> start(config()).close())
                    .isInstanceOf(DatabaseUnavailableException.class)
                    .message()
                    .doesNotContain("\n")
                    .startsWith("another Retrysafe server is running on the data folder "
                            + dataDir.toAbsolutePath().normalize())
                    .contains("stop it first")
                    .contains("RETRYSAFE_DATA_DIR");
            assertThat(Api.of(running).get("/v1/payments").status())
                    .as("the running server is untouched")
                    .isEqualTo(200);
        }
    }
}
