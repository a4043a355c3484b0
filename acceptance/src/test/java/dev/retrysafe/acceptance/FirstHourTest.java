package dev.retrysafe.acceptance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.retrysafe.testkit.PostgresTestDatabase;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The server's first hour as processes show it (issue 33): the start banner and the start page it
 * prints, {@code --port} over {@code PORT}, one warning line for a Redis that does not answer, and
 * a one-line message with exit code 1 for a PostgreSQL database not created yet and for a data
 * folder that another server holds (once: a Flyway error several causes deep).
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class FirstHourTest {

    private static final Duration READY_DEADLINE = Duration.ofSeconds(90);
    private static final Duration EXIT_DEADLINE = Duration.ofSeconds(60);
    /** A line of a Java stack trace, a chained cause, or the JVM's report of an uncaught exception. */
    private static final Pattern STACK_TRACE =
            Pattern.compile("(?m)^\\s+at [\\w$.<>/]+\\(.*\\)\\s*$|^Caused by: |Exception in thread ");

    @TempDir
    Path temp;

    private final List<ServerProcess> processes = new ArrayList<>();

    @AfterEach
    void stopEverything() {
        processes.forEach(ServerProcess::close);
    }

    @Test
    void theBannerPrintsTheStartPageAndRedisThatDoesNotAnswerIsOneWarning() throws Exception {
        // given: PORT says one port, --port another; Redis configured on a port nobody listens on
        Path dataDir = temp.resolve("data");
        int port = ServerProcess.freePort();
        int silentRedis = ServerProcess.freePort();
        ServerProcess server = start(
                "server",
                Map.of(
                        "PORT",
                        "1",
                        "RETRYSAFE_DATA_DIR",
                        dataDir.toString(),
                        "RETRYSAFE_REDIS_URL",
                        "redis://127.0.0.1:" + silentRedis),
                "--port",
                Integer.toString(port));
        try {
            // when
            server.awaitReady(port, READY_DEADLINE);

            // then: the banner names where to go, and the start page is there
            String base = "http://localhost:" + port;
            await("the banner")
                    .atMost(Duration.ofSeconds(10))
                    .untilAsserted(() -> assertThat(server.stdout())
                            .contains(
                                    "Retrysafe is ready on " + base + " (Ctrl-C stops it)\n",
                                    "  Start page: " + base + "/\n",
                                    "  Dashboard:  " + base + "/dashboard\n",
                                    "  API docs:   " + base + "/docs\n",
                                    "  Demo key:   "
                                            + dataDir.resolve("demo-api-key").toAbsolutePath() + "\n"));
            try (HttpClient http = HttpClient.newHttpClient()) {
                HttpResponse<String> page = http.send(
                        HttpRequest.newBuilder(ServerProcess.base(port).resolve("/"))
                                .timeout(Duration.ofSeconds(10))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
                assertThat(page.statusCode()).isEqualTo(200);
                assertThat(page.body()).contains("href=\"/dashboard\"", "href=\"/docs\"", "demo-api-key");
            }
            List<String> redisLines = server.stderr()
                    .lines()
                    .filter(line -> line.contains("Redis at redis://127.0.0.1:" + silentRedis))
                    .toList();
            assertThat(redisLines)
                    .as("one warning for the silent Redis")
                    .singleElement()
                    .satisfies(line -> assertThat(line).contains("WARN").contains("does not answer"));
            assertThat(server.stdout() + server.stderr()).doesNotContainPattern(STACK_TRACE);
        } catch (Throwable t) {
            ServerProcess.attachLogs(t, List.of(server));
            throw t;
        }
    }

    @Test
    void aPostgresDatabaseNotCreatedYetIsOneLineAndExitCodeOne() throws Exception {
        try (PostgresTestDatabase existing = PostgresTestDatabase.create()) {
            String missing = existing.name() + "_missing";
            ServerProcess server = start(
                    "missing-database",
                    Map.of(
                            "PORT", Integer.toString(ServerProcess.freePort()),
                            "RETRYSAFE_DATABASE_URL", existing.jdbcUrl().replace("/" + existing.name(), "/" + missing),
                            "RETRYSAFE_DATABASE_USER", existing.user()));

            assertThat(server.waitFor(EXIT_DEADLINE)).as(server.describe()).isEqualTo(1);
            assertThat(server.stderr().strip())
                    .as(server.describe())
                    .doesNotContain("\n")
                    .startsWith("retrysafe: cannot start: the PostgreSQL database '" + missing + "' does not exist")
                    .contains("createdb", "CREATE DATABASE " + missing);
        }
    }

    @Test
    void aDataFolderThatAnotherServerHoldsIsOneLineAndExitCodeOne() throws Exception {
        Path dataDir = temp.resolve("data");
        int port = ServerProcess.freePort();
        ServerProcess first =
                start("first", Map.of("PORT", Integer.toString(port), "RETRYSAFE_DATA_DIR", dataDir.toString()));
        first.awaitReady(port, READY_DEADLINE);

        ServerProcess second = start(
                "second",
                Map.of("PORT", Integer.toString(ServerProcess.freePort()), "RETRYSAFE_DATA_DIR", dataDir.toString()));

        assertThat(second.waitFor(EXIT_DEADLINE)).as(second.describe()).isEqualTo(1);
        assertThat(second.stderr().strip())
                .as(second.describe())
                .doesNotContain("\n")
                .startsWith("retrysafe: cannot start: another Retrysafe server is running on the data folder "
                        + dataDir.toAbsolutePath());
        assertThat(first.isAlive()).as("the first server runs on").isTrue();
    }

    private ServerProcess start(String name, Map<String, String> env, String... args) throws Exception {
        Path logs = Files.createDirectories(temp.resolve("logs"));
        ServerProcess p =
                ServerProcess.start(name, ServerProcess.java(args), ServerProcess.environment(env), temp, logs);
        processes.add(p);
        return p;
    }
}
