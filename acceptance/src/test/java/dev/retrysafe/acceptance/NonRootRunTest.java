package dev.retrysafe.acceptance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.retrysafe.server.Api;
import dev.retrysafe.testkit.RepositoryRoot;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The server needs no root privileges (docs/operations.md, "Running it safely"): the packaged jar,
 * started as an unprivileged user ({@code nobody}, uid 65534) with a data folder of its own,
 * becomes ready, takes a payment, and its process runs with that uid. When the tests themselves
 * run unprivileged, the server is started as they are.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class NonRootRunTest {

    private static final int NOBODY = 65534;

    @Test
    void thePackagedServerRunsAsAnUnprivilegedUser() throws Exception {
        Path root = RepositoryRoot.find();
        Path jar = root.resolve("server/target/retrysafe-server.jar");
        assertThat(jar).as("the packaged server").isRegularFile();
        // a folder the unprivileged user may write (JUnit's @TempDir is readable by root only)
        Path dir = Files.createTempDirectory("rs-nonroot-");
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxrwxrwx"));
        boolean root0 = "root".equals(System.getProperty("user.name"));
        String java = ProcessHandle.current().info().command().orElseThrow();
        List<String> command = new ArrayList<>();
        if (root0) {
            command.addAll(List.of("setpriv", "--reuid=" + NOBODY, "--regid=" + NOBODY, "--clear-groups", "--"));
        }
        command.addAll(List.of(java, "-Xmx256m", "-jar", jar.toString()));
        int port = ServerProcess.freePort();
        String key = "rs_" + UUID.randomUUID().toString().replace("-", "");
        Map<String, String> env = ServerProcess.environment(Map.of(
                "PORT",
                Integer.toString(port),
                "RETRYSAFE_HOST",
                "127.0.0.1",
                "RETRYSAFE_DATA_DIR",
                dir.resolve("data").toString(),
                "RETRYSAFE_BANK_LATENCY_MS",
                "0",
                "RETRYSAFE_BOOTSTRAP_API_KEYS",
                key));
        ServerProcess server = ServerProcess.start("nonroot", command, env, dir, dir);
        try {
            server.awaitReady(port, Duration.ofSeconds(60));
            Api.Answer payment = new Api(ServerProcess.base(port), key)
                    .post("/v1/payments", "{\"amount\": 100, \"currency\": \"eur\"}");
            assertThat(payment.status()).as(payment.raw().body()).isEqualTo(201);

            long javaPid = ProcessHandle.of(server.pid())
                    .orElseThrow()
                    .descendants()
                    .map(ProcessHandle::pid)
                    .findFirst()
                    .orElse(server.pid());
            String status = Files.readString(Path.of("/proc/" + javaPid + "/status"));
            String uidLine =
                    status.lines().filter(l -> l.startsWith("Uid:")).findFirst().orElseThrow();
            assertThat(uidLine.split("\\s+")[1]).as("the server's real uid").isNotEqualTo("0");
            if (root0) {
                assertThat(uidLine.split("\\s+")).contains(Integer.toString(NOBODY));
            }
        } catch (Throwable failure) {
            ServerProcess.attachLogs(failure, List.of(server));
            throw failure;
        } finally {
            server.close();
            ServerProcess.deleteTree(dir);
        }
    }
}
