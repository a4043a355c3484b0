package dev.retrysafe.acceptance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.retrysafe.server.Api;
import dev.retrysafe.testkit.PostgresTestDatabase;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Report jobs across {@code kill -9}, with server processes on one PostgreSQL database and a 2 s
 * job lease: a job whose worker dies is run to completion by another instance once the lease has
 * run out, with exactly one result and one {@code report.succeeded} event; a job that kills every
 * worker that takes it ends {@code failed} with a {@code worker-lost} problem after the retry bound.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class JobCrashTest {

    private static final Duration START_DEADLINE = Duration.ofSeconds(60);
    /** Covers a process start plus the dead worker's 2 s lease. */
    private static final Duration TAKEOVER_DEADLINE = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    private final String apiKey = "acc_jobs_" + UUID.randomUUID().toString().replace("-", "");

    /** One instance's configuration: a 2 s lease and reports stretched to {@code reportDuration}. */
    private List<String> command(String name, String reportDuration, int maxAttempts) throws IOException {
        Path config = dir.resolve(name + ".yaml");
        Files.writeString(config, """
                rate_limits:
                  enabled: false
                shutdown:
                  timeout: 5s
                jobs:
                  workers: 2
                  lease: 2s
                  max_attempts: %d
                  report_min_duration: %s
                """.formatted(maxAttempts, reportDuration), StandardCharsets.UTF_8);
        return ServerProcess.java("--config", config.toString());
    }

    private Map<String, String> env(PostgresTestDatabase db, int port) {
        Map<String, String> settings = new HashMap<>();
        settings.put("PORT", Integer.toString(port));
        settings.put("RETRYSAFE_HOST", "127.0.0.1");
        settings.put("RETRYSAFE_DATA_DIR", dir.resolve("data-" + port).toString());
        settings.put("RETRYSAFE_DATABASE_URL", db.jdbcUrl());
        settings.put("RETRYSAFE_DATABASE_USER", db.user());
        settings.put("RETRYSAFE_BANK_LATENCY_MS", "0");
        settings.put("RETRYSAFE_BOOTSTRAP_API_KEYS", apiKey);
        return ServerProcess.environment(settings);
    }

    private ServerProcess start(
            List<ServerProcess> processes,
            PostgresTestDatabase db,
            String name,
            String reportDuration,
            int maxAttempts,
            int port)
            throws IOException {
        ServerProcess p =
                ServerProcess.start(name, command(name, reportDuration, maxAttempts), env(db, port), dir, dir);
        processes.add(p);
        p.awaitReady(port, START_DEADLINE);
        return p;
    }

    private static JsonNode job(Api api, String location) {
        Api.Answer a = api.get(location);
        assertThat(a.status()).as(a.raw().body()).isEqualTo(200);
        return a.body();
    }

    private static void awaitRunning(Api api, String location, int attempt) {
        await("job running its attempt " + attempt)
                .atMost(TAKEOVER_DEADLINE)
                .pollInterval(Duration.ofMillis(50))
                .until(() -> {
                    JsonNode j = job(api, location);
                    return j.get("status").asText().equals("running")
                            && j.get("attempts").asInt() == attempt;
                });
    }

    private static List<JsonNode> events(Api api, String type, String jobId) {
        List<JsonNode> found = new ArrayList<>();
        api.get("/v1/events?limit=100").body().get("data").forEach(e -> {
            if (e.get("type").asText().equals(type)
                    && e.get("data").get("id").asText().equals(jobId)) {
                found.add(e);
            }
        });
        return found;
    }

    @Test
    void aJobWhoseWorkerIsKilledRunsToCompletionOnAnotherInstanceExactlyOnce() throws Exception {
        List<ServerProcess> processes = new ArrayList<>();
        try (PostgresTestDatabase db = PostgresTestDatabase.create()) {
            try {
                int portA = ServerProcess.freePort();
                int portB = ServerProcess.freePort();
                // A stretches reports to a minute, so it is surely mid-job when killed
                ServerProcess a = start(processes, db, "instance-a", "60s", 3, portA);
                Api apiA = new Api(ServerProcess.base(portA), apiKey);
                List<String> paid = new ArrayList<>();
                for (int i = 0; i < 3; i++) {
                    Api.Answer p = apiA.post("/v1/payments", "{\"amount\": " + (100 + i) + ", \"currency\": \"eur\"}");
                    assertThat(p.status()).as(p.raw().body()).isEqualTo(201);
                    paid.add(p.body().get("id").asText());
                }
                Api.Answer accepted = apiA.post("/v1/reports", "{\"kind\": \"payments_csv\"}");
                assertThat(accepted.status()).as(accepted.raw().body()).isEqualTo(202);
                String location = accepted.header("Location");
                String jobId = accepted.body().get("id").asText();
                awaitRunning(apiA, location, 1);

                ServerProcess b = start(processes, db, "instance-b", "1s", 3, portB);
                Api apiB = new Api(ServerProcess.base(portB), apiKey);
                a.kill9();

                await("the job finished by instance B")
                        .atMost(TAKEOVER_DEADLINE)
                        .pollInterval(Duration.ofMillis(100))
                        .until(() -> job(apiB, location).get("status").asText().equals("succeeded"));
                JsonNode done = job(apiB, location);
                assertThat(done.get("attempts").asInt()).isEqualTo(2);
                String csv = apiB.get(location + "/result").raw().body();
                String[] lines = csv.split("\r\n");
                assertThat(lines).hasSize(1 + paid.size());
                for (int i = 0; i < paid.size(); i++) {
                    assertThat(lines[i + 1]).startsWith(paid.get(i) + ",");
                }
                assertThat(events(apiB, "report.succeeded", jobId)).hasSize(1);
                assertThat(events(apiB, "report.failed", jobId)).isEmpty();
                assertThat(b.waitFor(Duration.ZERO))
                        .as("instance B still running")
                        .isEqualTo(-1);
            } catch (Throwable failure) {
                ServerProcess.attachLogs(failure, new ArrayList<>(processes));
                throw failure;
            } finally {
                for (ServerProcess p : processes) {
                    p.close();
                }
            }
        }
    }

    @Test
    void aJobThatKillsEveryWorkerEndsFailedWithAProblemAfterTheRetryBound() throws Exception {
        List<ServerProcess> processes = new ArrayList<>();
        int maxAttempts = 2;
        try (PostgresTestDatabase db = PostgresTestDatabase.create()) {
            try {
                int port = ServerProcess.freePort();
                Api api = new Api(ServerProcess.base(port), apiKey);
                ServerProcess first = start(processes, db, "worker-1", "60s", maxAttempts, port);
                Api.Answer accepted = api.post("/v1/reports", "{\"kind\": \"payments_csv\"}");
                assertThat(accepted.status()).as(accepted.raw().body()).isEqualTo(202);
                String location = accepted.header("Location");
                String jobId = accepted.body().get("id").asText();
                awaitRunning(api, location, 1);
                first.kill9();

                ServerProcess second = start(processes, db, "worker-2", "60s", maxAttempts, port);
                awaitRunning(api, location, 2);
                second.kill9();

                // the third instance finds the job's lease run out with every attempt spent
                start(processes, db, "worker-3", "60s", maxAttempts, port);
                await("the job failed as worker-lost")
                        .atMost(TAKEOVER_DEADLINE)
                        .pollInterval(Duration.ofMillis(100))
                        .until(() -> job(api, location).get("status").asText().equals("failed"));
                JsonNode failed = job(api, location);
                assertThat(failed.get("attempts").asInt()).isEqualTo(maxAttempts);
                assertThat(failed.get("error").get("type").asText()).endsWith("/problems/worker-lost");
                assertThat(failed.get("error").get("title").asText()).isNotBlank();
                assertThat(failed.get("error").get("detail").asText()).contains(Integer.toString(maxAttempts));
                assertThat(failed.get("result_url").isNull()).isTrue();
                assertThat(api.get(location + "/result").status()).isEqualTo(409);
                assertThat(events(api, "report.failed", jobId)).hasSize(1);
            } catch (Throwable failure) {
                ServerProcess.attachLogs(failure, new ArrayList<>(processes));
                throw failure;
            } finally {
                for (ServerProcess p : processes) {
                    p.close();
                }
            }
        }
    }
}
