package dev.retrysafe.acceptance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.retrysafe.server.Api;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 34's reload, as an operator does it: the server runs as its own process with
 * {@code --config}; the file is edited and the process gets {@code kill -HUP}. A lower quota
 * takes effect on the next request (its counters carried on); a broken file changes nothing and
 * the log says why; the process keeps running throughout.
 */
class ConfigReloadSignalTest {

    private static final Duration START_DEADLINE = Duration.ofSeconds(60);
    private static final Duration RELOAD_DEADLINE = Duration.ofSeconds(20);

    @TempDir
    Path dir;

    private static String limits(String quota) {
        return """
                shutdown:
                  timeout: 2s
                rate_limits:
                  store: memory
                  policies:
                    - name: key
                      scope: api_key
                      algorithm: fixed_window
                      quota: %s
                      window: 1h
                """.formatted(quota);
    }

    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void sighupAppliesALowerQuotaAndABrokenFileChangesNothing() throws Exception {
        String apiKey = "rs_" + UUID.randomUUID().toString().replace("-", "") + "Hu1";
        int port = ServerProcess.freePort();
        Path config = dir.resolve("retrysafe.yaml");
        Files.writeString(config, limits("10"), StandardCharsets.UTF_8);
        Map<String, String> settings = new HashMap<>();
        settings.put("PORT", Integer.toString(port));
        settings.put("RETRYSAFE_HOST", "127.0.0.1");
        settings.put("RETRYSAFE_DATA_DIR", dir.resolve("data").toString());
        settings.put("RETRYSAFE_BOOTSTRAP_API_KEYS", apiKey);
        List<String> command = ServerProcess.java("--config", config.toString());
        URI base = ServerProcess.base(port);
        Api api = new Api(base, apiKey);

        try (ServerProcess server =
                ServerProcess.start("server", command, ServerProcess.environment(settings), dir, dir)) {
            try {
                server.awaitReady(port, START_DEADLINE);
                for (int i = 1; i <= 4; i++) {
                    assertThat(api.get("/v1/payments").header("X-RateLimit-Remaining"))
                            .isEqualTo(Integer.toString(10 - i));
                }

                Files.writeString(config, limits("5"), StandardCharsets.UTF_8);
                hangUp(server);
                // the budget report spends nothing: ask it until the new quota shows
                await("the lower quota after SIGHUP")
                        .atMost(RELOAD_DEADLINE)
                        .pollInterval(Duration.ofMillis(100))
                        .until(() -> "5".equals(api.get("/v1/rate_limit").header("X-RateLimit-Limit")));
                Api.Answer next = api.get("/v1/payments");
                assertThat(next.status()).isEqualTo(200);
                assertThat(next.header("X-RateLimit-Remaining"))
                        .as("the 4 requests before the reload still count")
                        .isEqualTo("0");
                assertThat(api.get("/v1/payments").status()).isEqualTo(429);
                assertThat(server.stderr()).contains("configuration reloaded: rate limits reloaded: policies [key]");

                Files.writeString(config, limits("zero"), StandardCharsets.UTF_8);
                hangUp(server);
                await("the refused reload in the log")
                        .atMost(RELOAD_DEADLINE)
                        .pollInterval(Duration.ofMillis(100))
                        .until(() -> server.stderr().contains("configuration reload refused, nothing changed"));
                assertThat(server.stderr()).contains("rate_limits.policies[0].quota");
                assertThat(server.isAlive()).isTrue();
                assertThat(api.get("/v1/rate_limit").header("X-RateLimit-Limit"))
                        .as("the policies of the last good file")
                        .isEqualTo("5");
                assertThat(api.get("/v1/payments").status()).isEqualTo(429);
            } catch (AssertionError | RuntimeException e) {
                ServerProcess.attachLogs(e, List.of(server));
                throw e;
            }
        }
    }

    private static void hangUp(ServerProcess server) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-HUP", Long.toString(server.pid()))
                .inheritIO()
                .start();
        assertThat(kill.waitFor(10, TimeUnit.SECONDS)).isTrue();
        assertThat(kill.exitValue()).as("kill -HUP").isZero();
    }
}
