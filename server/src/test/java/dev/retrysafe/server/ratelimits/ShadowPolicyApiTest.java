package dev.retrysafe.server.ratelimits;

import static org.assertj.core.api.Assertions.assertThat;

import dev.retrysafe.ratelimit.Algorithm;
import dev.retrysafe.ratelimit.Policy;
import dev.retrysafe.ratelimit.PolicyMode;
import dev.retrysafe.ratelimit.Scope;
import dev.retrysafe.server.Api;
import dev.retrysafe.server.TestServer;
import dev.retrysafe.server.config.RateLimitConfig;
import dev.retrysafe.server.config.ServerConfig;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * A shadow policy over real HTTP: it refuses nothing, its would-be refusals are counted in
 * {@code /metrics} ({@code outcome="shadow_rejected"}), clients never see it, and an enforced
 * policy beside it still refuses.
 */
class ShadowPolicyApiTest {

    @Test
    void aShadowPolicyOfOnePerMinuteRefusesNothingOverTwentyRequestsAndCountsNineteenWouldBeRefusals() {
        Policy enforced = Policy.builder("key")
                .scope(Scope.apiKey())
                .algorithm(Algorithm.FIXED_WINDOW)
                .limit(22, Duration.ofHours(1))
                .build();
        Policy trial = Policy.builder("trial")
                .scope(Scope.apiKey())
                .limit(1, Duration.ofMinutes(1))
                .mode(PolicyMode.SHADOW)
                .build();
        RateLimitConfig limits = ServerConfig.defaults()
                .rateLimits()
                .withPolicies(List.of(trial, enforced))
                .withStore(RateLimitConfig.Store.MEMORY);
        try (TestServer server = TestServer.h2().rateLimits(limits).start()) {
            Api alice = Api.of(server);
            for (int i = 0; i < 20; i++) {
                Api.Answer answer = alice.get("/v1/payments");
                assertThat(answer.status()).as("request %d", i + 1).isEqualTo(200);
                assertThat(answer.header("RateLimit-Policy")).doesNotContain("trial");
                assertThat(answer.header("RateLimit")).doesNotContain("trial");
                assertThat(answer.header("X-RateLimit-Resource")).isEqualTo("key");
            }

            String metrics = alice.get("/metrics").raw().body();
            assertThat(metrics)
                    .contains("retrysafe_ratelimit_decisions_total{outcome=\"shadow_rejected\",policy=\"trial\"} 19")
                    .contains("retrysafe_ratelimit_decisions_total{outcome=\"allowed\",policy=\"trial\"} 1")
                    .contains("retrysafe_ratelimit_decisions_total{outcome=\"allowed\",policy=\"key\"} 20");
            assertThat(alice.get("/v1/rate_limit").body().get("policies").findValuesAsText("name"))
                    .containsExactly("key");

            // the enforced policy beside it still refuses: 22 per hour
            assertThat(alice.get("/v1/payments").status()).isEqualTo(200);
            assertThat(alice.get("/v1/payments").status()).isEqualTo(200);
            Api.Answer refused = alice.get("/v1/payments");
            assertThat(refused.status()).isEqualTo(429);
            assertThat(refused.body().get("policy").asText()).isEqualTo("key");
            assertThat(alice.get("/metrics").raw().body())
                    .contains("retrysafe_ratelimit_decisions_total{outcome=\"rejected\",policy=\"key\"} 1")
                    .contains("retrysafe_ratelimit_decisions_total{outcome=\"shadow_rejected\",policy=\"trial\"} 21");
        }
    }

    @Test
    void aReplayGivesBackWhatItSpentButNeverAShadowUnitItDidNotSpend() {
        Policy trial = Policy.builder("trial")
                .scope(Scope.apiKey())
                .limit(1, Duration.ofHours(1))
                .mode(PolicyMode.SHADOW)
                .build();
        Policy enforced = Policy.builder("key")
                .scope(Scope.apiKey())
                .limit(100, Duration.ofHours(1))
                .build();
        RateLimitConfig limits = ServerConfig.defaults()
                .rateLimits()
                .withPolicies(List.of(enforced, trial))
                .withStore(RateLimitConfig.Store.MEMORY);
        try (TestServer server = TestServer.h2().rateLimits(limits).start()) {
            Api alice = Api.of(server);
            String body = "{\"amount\": 250, \"currency\": \"eur\"}";
            String first = UUID.randomUUID().toString();
            String second = UUID.randomUUID().toString();
            assertThat(alice.post("/v1/payments", body, first).status()).isEqualTo(201); // trial: 1 of 1 spent
            assertThat(alice.post("/v1/payments", body, second).status()).isEqualTo(201); // trial: would refuse
            // a replay is charged, then refunded: the trial unit it did not spend must not come back
            assertThat(alice.post("/v1/payments", body, second).header("Idempotent-Replayed"))
                    .isEqualTo("true");
            assertThat(alice.post("/v1/payments", body, UUID.randomUUID().toString())
                            .status())
                    .isEqualTo(201);

            assertThat(alice.get("/metrics").raw().body())
                    .contains("retrysafe_ratelimit_decisions_total{outcome=\"allowed\",policy=\"trial\"} 1")
                    .contains("retrysafe_ratelimit_decisions_total{outcome=\"shadow_rejected\",policy=\"trial\"} 3")
                    .contains("retrysafe_ratelimit_refunds_total{policy=\"key\"} 1")
                    .doesNotContain("retrysafe_ratelimit_refunds_total{policy=\"trial\"}");
        }
    }
}
