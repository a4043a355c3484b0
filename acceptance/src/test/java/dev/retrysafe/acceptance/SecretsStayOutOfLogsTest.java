package dev.retrysafe.acceptance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.retrysafe.server.Api;
import java.net.URI;
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
 * API keys and webhook secrets never appear in the server's logs, its metrics or its error
 * bodies. A server process logs at debug level while it serves
 * valid and invalid keys, creates, reads and rotates webhook secrets, and delivers signed
 * webhooks to a receiver that fails; then its whole output is searched for every secret.
 *
 * <p>The one intended exception: the first start prints the demo account's key once, in the
 * announcement that says where it is saved; that line is checked to be the only one.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class SecretsStayOutOfLogsTest {

    private static final Duration START_DEADLINE = Duration.ofSeconds(60);
    private static final Duration DELIVERY_DEADLINE = Duration.ofSeconds(30);

    @TempDir
    Path dir;

    @Test
    void noKeyOrSecretInLogsMetricsOrErrorBodies() throws Exception {
        String apiKey = "rs_" + UUID.randomUUID().toString().replace("-", "") + "Ab9";
        String otherKey = "rs_" + UUID.randomUUID().toString().replace("-", "") + "Cd7";
        int port = ServerProcess.freePort();
        Path config = dir.resolve("retrysafe.yaml");
        Files.writeString(config, """
                shutdown:
                  timeout: 5s
                webhooks:
                  timeout: 2s
                  retry_schedule: [0s, 100ms, 100ms]
                  jitter: 0
                  allow_private_targets: ["127.0.0.0/8"]
                  require_https: false
                """, StandardCharsets.UTF_8);
        Map<String, String> settings = new HashMap<>();
        settings.put("PORT", Integer.toString(port));
        settings.put("RETRYSAFE_HOST", "127.0.0.1");
        settings.put("RETRYSAFE_DATA_DIR", dir.resolve("data").toString());
        settings.put("RETRYSAFE_BANK_LATENCY_MS", "0");
        settings.put("RETRYSAFE_BOOTSTRAP_API_KEYS", apiKey + "," + otherKey);
        List<String> command = new ArrayList<>(ServerProcess.java("--config", config.toString()));
        // every logger at debug but those the shipped simplelogger.properties names (Jetty's own
        // debug output prints raw request headers: docs/operations.md says never to enable it)
        command.add(1, "-Dorg.slf4j.simpleLogger.defaultLogLevel=debug");
        URI base = ServerProcess.base(port);
        Api api = new Api(base, apiKey);
        List<String> secrets = new ArrayList<>(List.of(apiKey, otherKey));
        List<String> errorBodies = new ArrayList<>();

        ServerProcess server = ServerProcess.start("server", command, ServerProcess.environment(settings), dir, dir);
        try (WebhookReceiver receiver = WebhookReceiver.start()) {
            server.awaitReady(port, START_DEADLINE);
            receiver.down(true);

            // keys that are wrong in every way a client gets them wrong
            String wrong = "rs_" + UUID.randomUUID().toString().replace("-", "");
            secrets.add(wrong);
            for (String header : List.of(
                    "Bearer " + wrong,
                    "Basic " + apiKey,
                    wrong,
                    "Bearer " + apiKey + "x",
                    "Bearer  " + otherKey.substring(0, 20))) {
                Api.Answer a = new Api(base, null)
                        .send(new Api(base, null)
                                .request("/v1/payments")
                                .header("Authorization", header)
                                .GET()
                                .build());
                assertThat(a.status()).isEqualTo(401);
                errorBodies.add(a.raw().body());
            }
            secrets.add(apiKey + "x");

            // webhook secrets: created, read back, rotated
            Api.Answer endpoint = api.post(
                    "/v1/webhook_endpoints", "{\"url\": \"" + receiver.url() + "\", \"event_types\": [\"*\"]}");
            assertThat(endpoint.status()).as(endpoint.raw().body()).isEqualTo(201);
            String endpointId = endpoint.body().get("id").asText();
            secrets.add(endpoint.body().get("secret").asText());
            Api.Answer rotated = api.post("/v1/webhook_endpoints/" + endpointId + "/rotate_secret", "");
            assertThat(rotated.status()).as(rotated.raw().body()).isEqualTo(200);
            secrets.add(rotated.body().get("secret").asText());
            assertThat(api.get("/v1/webhook_endpoints/" + endpointId + "/secret")
                            .status())
                    .isEqualTo(200);

            // signed deliveries that fail, and requests that fail for other reasons
            assertThat(api.post("/v1/payments", "{\"amount\": 500, \"currency\": \"eur\"}")
                            .status())
                    .isEqualTo(201);
            errorBodies.add(api.post("/v1/payments", "{\"amount\": \"" + apiKey + "\"}")
                    .raw()
                    .body());
            errorBodies.add(api.get("/v1/webhook_endpoints/" + apiKey).raw().body());
            errorBodies.add(api.post("/v1/payments", "{\"amount\": 1, \"currency\": \"eur\"}", apiKey)
                    .raw()
                    .body());
            await("the delivery's attempts all failed")
                    .atMost(DELIVERY_DEADLINE)
                    .pollInterval(Duration.ofMillis(50))
                    .until(() -> api.get("/v1/webhook_endpoints/" + endpointId + "/deliveries")
                            .body()
                            .get("data")
                            .findValuesAsText("status")
                            .contains("failed"));
            String metrics = new Api(base, null).get("/metrics").raw().body();

            // secrets in their raw form too: the key bytes of whsec_<base64> appear base64-encoded
            List<String> needles = new ArrayList<>();
            for (String s : secrets) {
                needles.add(s);
                if (s.startsWith("whsec_")) {
                    needles.add(s.substring("whsec_".length()));
                }
            }
            String output = server.stdout() + server.stderr();
            assertThat(output).as("the server's log was captured").contains("Retrysafe listening on port " + port);
            // the embedded first start announces the demo key once, right under the line saying where it is saved
            String demoKey = Files.readString(dir.resolve("data").resolve("demo-api-key"), StandardCharsets.UTF_8)
                    .strip();
            assertThat(output.split(java.util.regex.Pattern.quote(demoKey), -1))
                    .as("occurrences of the demo key + 1")
                    .hasSize(2);
            assertThat(output)
                    .contains("Created the demo account. Its API key (also in "
                            + dir.resolve("data").resolve("demo-api-key").toAbsolutePath() + "):\n  " + demoKey + "\n");
            for (String needle : needles) {
                assertThat(output).as("server output").doesNotContain(needle);
                assertThat(metrics).as("metrics").doesNotContain(needle);
                for (String body : errorBodies) {
                    assertThat(body).as("error body").doesNotContain(needle);
                }
            }
        } catch (Throwable failure) {
            ServerProcess.attachLogs(failure, List.of(server));
            throw failure;
        } finally {
            server.close();
        }
    }
}
