package dev.retrysafe.acceptance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.retrysafe.testkit.RepositoryRoot;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ./run example}, as a newcomer runs it: with nothing but a port and a data folder it starts
 * the packaged example (the build made it, so it must not build again), makes a demo key, takes a
 * payment with it, replays it, and stops cleanly on SIGTERM. And its rebuild check watches every
 * Retrysafe module whose jar is inside the example's.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class RunExampleTest {

    private static final String BUILD_LINE = "run: building the example";

    @TempDir
    Path temp;

    @Test
    void runExampleServesPaymentsWithItsDemoKeyAndStopsCleanlyOnSigterm() throws Exception {
        ExampleApp.jar(); // fails at once when the build did not package it
        Path dataDir = temp.resolve("data");
        int port = ServerProcess.freePort();
        Path logs = Files.createDirectories(temp.resolve("logs"));
        ServerProcess example = ServerProcess.start(
                "run-example",
                List.of(RepositoryRoot.find().resolve("run").toString(), "example", "--server.address=127.0.0.1"),
                ServerProcess.environment(Map.of(
                        "PORT", Integer.toString(port),
                        "RETRYSAFE_DATA_DIR", dataDir.toString(),
                        "RETRYSAFE_BANK_LATENCY_MS", "10")),
                temp,
                logs);
        try {
            example.awaitReady(port, ExampleApp.START_DEADLINE);
            assertThat(example.stderr()).as("the packaged jar is up to date").doesNotContain(BUILD_LINE);
            Path keyFile = dataDir.resolve("example-demo-api-key");
            assertThat(keyFile).isRegularFile();
            String demoKey = Files.readString(keyFile, StandardCharsets.UTF_8).strip();
            assertThat(demoKey).hasSizeGreaterThanOrEqualTo(16);
            assertThat(example.stderr()).contains(keyFile.toString()).doesNotContain(demoKey);

            ExampleHttp http = new ExampleHttp(ServerProcess.base(port));
            String key = UUID.randomUUID().toString();
            String body = "{\"amount\": 500, \"currency\": \"eur\", \"description\": \"first tea\"}";
            HttpResponse<String> created = http.pay(demoKey, key, body);
            assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
            HttpResponse<String> retried = http.pay(demoKey, key, body);
            assertThat(retried.headers().firstValue("Idempotent-Replayed")).contains("true");
            assertThat(ExampleHttp.json(retried).get("id"))
                    .isEqualTo(ExampleHttp.json(created).get("id"));

            assertThat(example.terminate(Duration.ofSeconds(60)))
                    .as("exit code after SIGTERM")
                    .isEqualTo(ServerProcess.EXIT_SIGTERM);
            assertThat(example.stdout()).contains("Graceful shutdown complete");
        } catch (Throwable t) {
            ServerProcess.attachLogs(t, List.of(example));
            throw t;
        } finally {
            example.close();
        }
    }

    @Test
    void theRebuildCheckWatchesEveryRetrysafeModuleInTheExamplesJar() throws Exception {
        // a module missing from the list leaves a stale example running after its sources changed
        Set<String> inTheJar = new TreeSet<>();
        Pattern retrysafeJar = Pattern.compile("BOOT-INF/lib/retrysafe-([a-z-]+?)-\\d[^/]*\\.jar");
        try (ZipFile jar = new ZipFile(ExampleApp.jar().toFile())) {
            for (var entry : Collections.list(jar.entries())) {
                Matcher m = retrysafeJar.matcher(entry.getName());
                if (m.matches()) {
                    inTheJar.add(m.group(1));
                }
            }
        }
        String script = Files.readString(RepositoryRoot.find().resolve("scripts/example.sh"));
        Matcher watched = Pattern.compile("\\{([a-z,/-]+)}/src/main").matcher(script);

        assertThat(inTheJar).contains("spring-boot-starter", "servlet", "idempotency");
        assertThat(watched.find())
                .as("scripts/example.sh's list of sources it rebuilds for")
                .isTrue();
        assertThat(Set.of(watched.group(1).split(",")))
                .contains("examples/spring-boot-payments")
                .containsAll(inTheJar);
    }
}
