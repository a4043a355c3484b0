package dev.retrysafe.server.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.retrysafe.ratelimit.Algorithm;
import dev.retrysafe.ratelimit.FailMode;
import dev.retrysafe.ratelimit.Policy;
import dev.retrysafe.ratelimit.RequestFacts;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RateLimitConfigTest {

    @TempDir
    Path dir;

    private ServerConfig load(String text) throws IOException {
        Path file = dir.resolve("config.yaml");
        Files.writeString(file, text);
        return ConfigLoader.load(file, Map.of());
    }

    private static final RequestFacts ANONYMOUS = new RequestFacts(null, null, "10.0.0.1", null, null, 1);
    private static final RequestFacts ALICE = new RequestFacts("key_1", "acct_1", "10.0.0.1", null, "free", 1);

    @Test
    void defaultsLimitEachKeyAccountReportsAndAnonymousAddress() {
        RateLimitConfig limits = ConfigLoader.load(null, Map.of()).rateLimits();

        assertThat(limits.enabled()).isTrue();
        assertThat(limits.store()).isEqualTo(RateLimitConfig.Store.AUTO);
        assertThat(limits.plans())
                .containsExactly(Map.entry("free", 1.0), Map.entry("pro", 10.0), Map.entry("enterprise", 100.0));
        assertThat(limits.policies())
                .extracting(Policy::name)
                .containsExactly("key", "account", "reports", "anonymous");
        Policy key = limits.policies().get(0);
        assertThat(key.scope().id()).isEqualTo("api_key");
        assertThat(key.algorithm()).isEqualTo(Algorithm.GCRA);
        assertThat(key.quota()).isEqualTo(100);
        assertThat(key.window()).isEqualTo(Duration.ofSeconds(10));
        assertThat(key.burst()).isEqualTo(100);
        assertThat(key.failMode()).isEqualTo(FailMode.OPEN);
        Policy reports = limits.policies().get(2);
        assertThat(reports.routeGroup()).isEqualTo("reports");
        assertThat(reports.quota()).isEqualTo(60);
        assertThat(reports.window()).isEqualTo(Duration.ofHours(1));
        Policy anonymous = limits.policies().get(3);
        assertThat(anonymous.appliesTo(ANONYMOUS)).isTrue();
        assertThat(anonymous.appliesTo(ALICE))
                .as("an authenticated caller is limited by key and account")
                .isFalse();
        assertThat(limits.retryAfterJitter()).isZero();
        assertThat(limits.redisTimeout()).isEqualTo(Duration.ofMillis(100));
        assertThat(limits.redisKeyPrefix()).isEqualTo("retrysafe:rl:");
        assertThat(limits.redisDirectConnection()).isTrue();
    }

    @Test
    void aFileReplacesThePolicyListAndReadsEveryField() throws IOException {
        RateLimitConfig limits = load("""
                rate_limits:
                  store: memory
                  retry_after_jitter: 2s
                  redis_direct_connection: false
                  plans:
                    pro: 4
                  policies:
                    - name: strict
                      scope: account
                      algorithm: sliding_window
                      quota: 5
                      window: 10s
                      cost: 2
                      fail: closed
                    - name: bursty
                      scope: ip
                      algorithm: token_bucket
                      quota: 10
                      window: 1m
                      burst: 30
                      applies_to: authenticated
                """).rateLimits();

        assertThat(limits.store()).isEqualTo(RateLimitConfig.Store.MEMORY);
        assertThat(limits.retryAfterJitter()).isEqualTo(Duration.ofSeconds(2));
        assertThat(limits.redisDirectConnection()).isFalse();
        assertThat(limits.plans()).containsEntry("pro", 4.0).containsEntry("free", 1.0);
        assertThat(limits.policies()).hasSize(2);
        Policy strict = limits.policies().get(0);
        assertThat(strict.algorithm()).isEqualTo(Algorithm.SLIDING_WINDOW);
        assertThat(strict.cost()).isEqualTo(2);
        assertThat(strict.failMode()).isEqualTo(FailMode.CLOSED);
        assertThat(strict.burst()).isEqualTo(5);
        Policy bursty = limits.policies().get(1);
        assertThat(bursty.burst()).isEqualTo(30);
        assertThat(bursty.scope().id()).isEqualTo("ip");
        assertThat(bursty.appliesTo(ANONYMOUS)).isFalse();
        assertThat(bursty.appliesTo(ALICE)).isTrue();
    }

    @Test
    void badPoliciesNameTheEntryAndField() {
        assertThatThrownBy(() -> load("""
                rate_limits:
                  policies:
                    - name: a
                      scope: api_key
                      quota: 0
                      window: 1s
                """))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("rate_limits.policies[0]")
                .hasMessageContaining("quota");
        assertThatThrownBy(() -> load("""
                rate_limits:
                  policies:
                    - name: a
                      scope: planet
                      quota: 1
                      window: 1s
                """))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("rate_limits.policies[0].scope");
        assertThatThrownBy(() -> load("""
                rate_limits:
                  policies:
                    - name: a
                      scope: api_key
                      quota: 1
                      window: 1s
                      colour: red
                """))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("rate_limits.policies[0].colour");
        assertThatThrownBy(() -> load("""
                rate_limits:
                  policies:
                    - {name: a, scope: api_key, quota: 1, window: 1s}
                    - {name: a, scope: account, quota: 1, window: 1s}
                """)).isInstanceOf(ConfigException.class).hasMessageContaining("used twice");
        assertThatThrownBy(() -> load("""
                rate_limits:
                  policies:
                    - {name: a, scope: api_key, quota: 1, window: 1s, applies_to: robots}
                """)).isInstanceOf(ConfigException.class).hasMessageContaining("applies_to");
        assertThatThrownBy(() -> load("""
                rate_limits:
                  policies:
                    - {name: a, scope: api_key, quota: 1}
                """))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("rate_limits.policies[0].window");
    }

    @Test
    void redisStoreNeedsARedisUrl() {
        assertThatThrownBy(() -> load("""
                rate_limits:
                  store: redis
                """)).isInstanceOf(ConfigException.class).hasMessageContaining("redis.url");
        assertThatThrownBy(() -> load("""
                rate_limits:
                  store: disk
                """))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("auto, memory or redis");
        assertThatThrownBy(() -> load("""
                rate_limits:
                  redis_key_prefix: "a{b}"
                """))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("rate_limits.redis_key_prefix");
    }

    @Test
    void jitterIsWholeSeconds() throws IOException {
        // Retry-After counts seconds: 1500ms would act as 1s and 500ms as none, silently
        for (String jitter : List.of("500ms", "1500ms")) {
            assertThatThrownBy(() -> load("rate_limits:\n  retry_after_jitter: " + jitter + "\n"))
                    .isInstanceOf(ConfigException.class)
                    .hasMessageContaining("rate_limits.retry_after_jitter")
                    .hasMessageContaining("whole seconds");
        }
        assertThat(load("rate_limits:\n  retry_after_jitter: 2000ms\n")
                        .rateLimits()
                        .retryAfterJitter())
                .isEqualTo(Duration.ofSeconds(2));
    }
}
