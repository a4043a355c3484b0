package dev.retrysafe.acceptance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.retrysafe.server.Api;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The transactional outbox across a crash: a server process makes payments while the customer's
 * receiver is failing, is killed with SIGKILL right after the last payment's {@code 201}, and is
 * restarted on the same database; every committed payment's event then reaches the receiver,
 * exactly once as far as the receiver's business logic is concerned.
 */
@Timeout(value = 150, unit = TimeUnit.SECONDS)
class OutboxCrashTest {

    private static final int PAYMENTS = 10;
    private static final Duration START_DEADLINE = Duration.ofSeconds(60);
    /** Covers a claim held by the killed process: its 30 s lease must run out first. */
    private static final Duration DELIVERY_DEADLINE = Duration.ofSeconds(60);

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    @Test
    void everyPaymentCommittedBeforeAKill9IsDeliveredAfterTheRestart() throws Exception {
        String apiKey = "acc_outbox_" + UUID.randomUUID().toString().replace("-", "");
        int port = ServerProcess.freePort();
        Path config = dir.resolve("retrysafe.yaml");
        Files.writeString(config, """
                rate_limits:
                  enabled: false
                shutdown:
                  timeout: 5s
                webhooks:
                  timeout: 2s
                  retry_schedule: [0s, 500ms, 500ms, 500ms, 500ms, 500ms, 500ms, 500ms, 500ms, 500ms,
                                   500ms, 500ms, 500ms, 500ms, 500ms, 500ms, 500ms, 500ms, 500ms, 500ms]
                  jitter: 0
                  allow_private_targets: ["127.0.0.0/8"]
                  require_https: false
                """, StandardCharsets.UTF_8);
        Map<String, String> settings = new HashMap<>();
        settings.put("PORT", Integer.toString(port));
        settings.put("RETRYSAFE_HOST", "127.0.0.1");
        settings.put("RETRYSAFE_DATA_DIR", dir.resolve("data").toString());
        settings.put("RETRYSAFE_BANK_LATENCY_MS", "0");
        settings.put("RETRYSAFE_BOOTSTRAP_API_KEYS", apiKey);
        Map<String, String> env = ServerProcess.environment(settings);
        List<String> command = ServerProcess.java("--config", config.toString());
        URI base = ServerProcess.base(port);
        Api api = new Api(base, apiKey);

        List<ServerProcess> processes = new ArrayList<>();
        try (WebhookReceiver receiver = WebhookReceiver.start()) {
            receiver.down(true);
            ServerProcess first = ServerProcess.start("server-1", command, env, dir, dir);
            processes.add(first);
            first.awaitReady(port, START_DEADLINE);
            Api.Answer endpoint = api.post(
                    "/v1/webhook_endpoints",
                    "{\"url\": \"" + receiver.url() + "\", \"event_types\": [\"payment.succeeded\"]}");
            assertThat(endpoint.status()).as(endpoint.raw().body()).isEqualTo(201);
            receiver.trust(endpoint.body().get("secret").asText());

            Set<String> paid = new HashSet<>();
            for (int i = 0; i < PAYMENTS; i++) {
                Api.Answer payment = api.post("/v1/payments", "{\"amount\": " + (100 + i) + ", \"currency\": \"eur\"}");
                assertThat(payment.status()).as(payment.raw().body()).isEqualTo(201);
                paid.add(payment.body().get("id").asText());
            }
            first.kill9();
            assertThat(receiver.handled())
                    .as("handled while the receiver was down")
                    .isEmpty();

            receiver.down(false);
            ServerProcess second = ServerProcess.start("server-2", command, env, dir, dir);
            processes.add(second);
            second.awaitReady(port, START_DEADLINE);

            await("every committed payment's event handled by the receiver")
                    .atMost(DELIVERY_DEADLINE)
                    .pollInterval(Duration.ofMillis(50))
                    .until(() -> paymentIds(receiver.handled()).containsAll(paid));
            assertThat(receiver.handled()).hasSize(PAYMENTS);
            assertThat(receiver.rejected()).isZero();
        } catch (Throwable failure) {
            ServerProcess.attachLogs(failure, new ArrayList<>(processes));
            throw failure;
        } finally {
            for (ServerProcess p : processes) {
                p.close();
            }
        }
    }

    private static Set<String> paymentIds(List<String> bodies) throws Exception {
        Set<String> ids = new HashSet<>();
        for (String body : bodies) {
            JsonNode event = JSON.readTree(body);
            ids.add(event.get("data").get("id").asText());
        }
        return ids;
    }
}
