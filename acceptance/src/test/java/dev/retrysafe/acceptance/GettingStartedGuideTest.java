package dev.retrysafe.acceptance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.retrysafe.testkit.RepositoryRoot;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code docs/getting-started.md} runs as written. Its {@code ```sh} blocks run in order in one
 * bash session in the repository's folder (see {@link BashSession}); its {@code ```sh server}
 * blocks start the server with the same {@code ./run} command line, stopping the one before
 * with SIGTERM as a user's Ctrl-C does; each {@code ```output} block must match what its block
 * printed (see {@link OutputMatch}; a server's standard output). The convention is
 * {@link Guide}'s, and the guide's last section explains it to readers.
 *
 * <p>The server gets a free port in {@code PORT} and a new folder ending in {@code /data} in
 * {@code RETRYSAFE_DATA_DIR}, and the shell gets both plus {@code RECEIVER_PORT}, the variables
 * the guide tells its readers about. In what was printed, those two ports read as the defaults
 * the guide shows (8080 and 9000) before it is compared.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class GettingStartedGuideTest {

    private static final String GUIDE = "getting-started.md";
    private static final Duration READY_DEADLINE = Duration.ofSeconds(90);
    private static final Duration BLOCK_DEADLINE = Duration.ofSeconds(90);
    private static final Duration OUTPUT_DEADLINE = Duration.ofSeconds(10);
    private static final Duration STOP_DEADLINE = Duration.ofSeconds(20);
    private static final String SHOWN_PORT = "8080";
    private static final String SHOWN_RECEIVER_PORT = "9000";

    @TempDir
    Path temp;

    private final List<ServerProcess> servers = new ArrayList<>();

    @AfterEach
    void stopServers() {
        for (ServerProcess server : servers) {
            server.close();
        }
    }

    @Test
    void theGettingStartedGuideRunsAsWrittenAndPrintsWhatItShows() throws Exception {
        Path root = RepositoryRoot.find();
        Guide guide = Guide.parse(Files.readString(RepositoryRoot.doc(GUIDE), StandardCharsets.UTF_8));
        int port = ServerProcess.freePort();
        int receiverPort = ServerProcess.freePort();
        Map<String, String> settings = Map.of(
                "PORT",
                Integer.toString(port),
                "RETRYSAFE_DATA_DIR",
                temp.resolve("data").toString());
        Map<String, String> shellEnv = new HashMap<>(settings);
        shellEnv.put("RECEIVER_PORT", Integer.toString(receiverPort));
        Path logs = Files.createDirectories(temp.resolve("logs"));
        Ports ports = new Ports(port, receiverPort);

        try (BashSession shell = BashSession.start(
                root, ServerProcess.environment(shellEnv), Files.createDirectories(temp.resolve("blocks")))) {
            for (Guide.Step step : guide.steps()) {
                if (step.kind() == Guide.Kind.SERVER) {
                    startServer(step, root, ServerProcess.environment(settings), logs, port, ports);
                } else {
                    runBlock(shell, step, ports);
                }
            }
        } catch (Throwable t) {
            ServerProcess.attachLogs(t, new ArrayList<@Nullable ServerProcess>(servers));
            throw t;
        }
    }

    private void startServer(Guide.Step step, Path root, Map<String, String> env, Path logs, int port, Ports ports)
            throws Exception {
        if (!servers.isEmpty()) {
            ServerProcess before = servers.getLast();
            assertThat(before.terminate(STOP_DEADLINE))
                    .as("the server before %s stops on SIGTERM", step.describe())
                    .isEqualTo(ServerProcess.EXIT_SIGTERM);
        }
        List<String> command = new ArrayList<>(step.serverCommand());
        command.set(0, root.resolve(command.getFirst()).toString()); // ./run, in the repository's folder
        ServerProcess server = ServerProcess.start("server-" + (servers.size() + 1), command, env, root, logs);
        servers.add(server);
        server.awaitReady(port, READY_DEADLINE);
        String expected = step.expectedOutput();
        if (expected != null) {
            // the ready line is printed just after the port opens: wait for it, bounded
            await("the output claimed after " + step.describe())
                    .atMost(OUTPUT_DEADLINE)
                    .pollInterval(Duration.ofMillis(100))
                    .untilAsserted(
                            () -> assertThat(OutputMatch.mismatch(expected, ports.shownAsDefaults(server.stdout())))
                                    .as(step.describe())
                                    .isNull());
        }
    }

    private static void runBlock(BashSession shell, Guide.Step step, Ports ports) throws Exception {
        String output;
        try {
            output = shell.run(step.text(), BLOCK_DEADLINE);
        } catch (AssertionError e) {
            throw new AssertionError(step.describe() + "\n" + e.getMessage(), e);
        }
        String expected = step.expectedOutput();
        if (expected != null) {
            assertThat(OutputMatch.mismatch(expected, ports.shownAsDefaults(output)))
                    .as(step.describe())
                    .isNull();
        }
    }

    /** The test's ports, and how printed text reads with the guide's defaults in their place. */
    private record Ports(int server, int receiver) {

        String shownAsDefaults(String printed) {
            return replacePort(replacePort(printed, server, SHOWN_PORT), receiver, SHOWN_RECEIVER_PORT);
        }

        private static String replacePort(String text, int port, String shown) {
            Pattern hostAndPort = Pattern.compile("(localhost|127\\.0\\.0\\.1):" + port + "(?!\\d)");
            return hostAndPort.matcher(text).replaceAll("$1:" + shown);
        }
    }
}
