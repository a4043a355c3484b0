package dev.retrysafe.server.ratelimits;

import static org.assertj.core.api.Assertions.assertThat;

import dev.retrysafe.server.Api;
import dev.retrysafe.server.TestServer;
import dev.retrysafe.server.config.ConfigLoader;
import dev.retrysafe.server.config.RateLimitConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 34's reload: a configuration read again applies its rate limits on the next request,
 * counters carried on where a policy's name and algorithm stay; a broken file changes nothing and
 * says why; what only a restart changes is named. (The acceptance module sends a real SIGHUP.)
 */
class RateLimitReloadTest {

    @TempDir
    Path dir;

    private static String limits(String quota, String extra) {
        return """
                rate_limits:
                  %s
                  policies:
                    - name: key
                      scope: api_key
                      algorithm: fixed_window
                      quota: %s
                      window: 1h
                """.formatted(extra, quota);
    }

    @Test
    void aLowerQuotaTakesEffectOnTheNextRequestAndABrokenFileChangesNothing() throws Exception {
        Path file = dir.resolve("retrysafe.yaml");
        Files.writeString(file, limits("10", "enabled: true"));
        RateLimitConfig started = ConfigLoader.load(file, Map.of()).rateLimits();
        try (TestServer server = TestServer.h2().rateLimits(started).start()) {
            Api api = Api.of(server);
            for (int i = 1; i <= 4; i++) {
                Api.Answer a = api.get("/v1/payments");
                assertThat(a.status()).isEqualTo(200);
                assertThat(a.header("X-RateLimit-Remaining")).isEqualTo(Integer.toString(10 - i));
            }

            Files.writeString(file, limits("5", "retry_after_jitter: 2s"));
            RateLimitReload.Outcome lowered = server.reload(file);

            assertThat(lowered.applied()).as(lowered.message()).isTrue();
            assertThat(lowered.message())
                    .contains("policies [key]")
                    .contains("unchanged until a restart: rate_limits.retry_after_jitter");
            Api.Answer next = api.get("/v1/payments");
            assertThat(next.status()).isEqualTo(200);
            assertThat(next.header("X-RateLimit-Limit")).as("the new quota").isEqualTo("5");
            assertThat(next.header("X-RateLimit-Remaining"))
                    .as("the 4 spent before still count")
                    .isEqualTo("0");
            assertThat(api.get("/v1/payments").status()).isEqualTo(429);

            Files.writeString(file, limits("0", "enabled: true"));
            RateLimitReload.Outcome broken = server.reload(file);

            assertThat(broken.applied()).isFalse();
            assertThat(broken.message()).contains("rate_limits.policies[0]", "quota of policy key must be at least 1");
            Api.Answer report = api.get("/v1/rate_limit");
            assertThat(report.header("X-RateLimit-Limit"))
                    .as("the policies before the broken file")
                    .isEqualTo("5");
            assertThat(api.get("/v1/payments").status()).isEqualTo(429);
        }
    }

    @Test
    void limitsOffAtStartNeedARestartToComeOn() throws Exception {
        Path file = dir.resolve("retrysafe.yaml");
        Files.writeString(file, limits("1", "enabled: true"));
        try (TestServer server = TestServer.h2().start()) { // rate limits off, as TestServer starts
            RateLimitReload.Outcome outcome = server.reload(file);

            assertThat(outcome.applied()).isFalse();
            assertThat(outcome.message()).contains("turning them on needs a restart");
            Api api = Api.of(server);
            assertThat(api.get("/v1/payments").status()).isEqualTo(200);
            assertThat(api.get("/v1/payments").status()).isEqualTo(200);
        }
    }
}
