package dev.retrysafe.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.retrysafe.server.config.ServerConfig;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * {@code GET /metrics} counts the filters' decisions under the names the Spring Boot starter's
 * meters have in Prometheus: rate-limit decisions per policy and outcome, refunds, and idempotency
 * claims by outcome (replays, 409, 422).
 */
class DecisionMetricsTest {

    @Test
    void metricsCountDecisionsRefundsAndClaims() {
        try (TestServer server =
                TestServer.h2().rateLimits(ServerConfig.defaults().rateLimits()).start()) {
            Api api = Api.of(server);
            String key = UUID.randomUUID().toString();
            String body = "{\"amount\": 250, \"currency\": \"eur\"}";
            assertThat(api.post("/v1/payments", body, key).status()).isEqualTo(201);
            assertThat(api.post("/v1/payments", body, key).header("Idempotent-Replayed"))
                    .isEqualTo("true");
            assertThat(api.post("/v1/payments", "{\"amount\": 251, \"currency\": \"eur\"}", key)
                            .status())
                    .isEqualTo(422);

            String metrics = api.get("/metrics").raw().body();
            assertThat(metrics)
                    .contains("retrysafe_idempotency_claims_total{outcome=\"acquired\"} 1")
                    .contains("retrysafe_idempotency_claims_total{outcome=\"replayed\"} 1")
                    .contains("retrysafe_idempotency_claims_total{outcome=\"mismatch\"} 1")
                    .contains("retrysafe_ratelimit_decisions_total{outcome=\"allowed\",policy=\"key\"}")
                    .contains("retrysafe_ratelimit_refunds_total{policy=\"key\"} 1");
        }
    }
}
