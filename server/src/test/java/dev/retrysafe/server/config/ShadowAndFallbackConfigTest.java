package dev.retrysafe.server.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.retrysafe.ratelimit.FailMode;
import dev.retrysafe.ratelimit.Policy;
import dev.retrysafe.ratelimit.PolicyMode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code policies[].mode}, {@code fail: local} and {@code rate_limits.fallback_instances} in the YAML file. */
class ShadowAndFallbackConfigTest {

    @TempDir
    Path dir;

    private ServerConfig load(String text) throws IOException {
        Path file = dir.resolve("config.yaml");
        Files.writeString(file, text);
        return ConfigLoader.load(file, Map.of());
    }

    @Test
    void defaultsEnforceEveryPolicyAndGiveOneInstanceTheWholeQuota() {
        RateLimitConfig limits = ConfigLoader.load(null, Map.of()).rateLimits();

        assertThat(limits.policies()).extracting(Policy::mode).containsOnly(PolicyMode.ENFORCE);
        assertThat(limits.fallbackInstances()).isEqualTo(1);
    }

    @Test
    void readsShadowModeFailLocalAndFallbackInstances() throws IOException {
        RateLimitConfig limits = load("""
                rate_limits:
                  fallback_instances: 3
                  policies:
                    - name: trial
                      scope: api_key
                      quota: 1
                      window: 1m
                      mode: shadow
                    - name: key
                      scope: api_key
                      quota: 100
                      window: 10s
                      fail: local
                      mode: enforce
                """).rateLimits();

        assertThat(limits.fallbackInstances()).isEqualTo(3);
        assertThat(limits.policies()).extracting(Policy::mode).containsExactly(PolicyMode.SHADOW, PolicyMode.ENFORCE);
        assertThat(limits.policies().get(1).failMode()).isEqualTo(FailMode.LOCAL);
    }

    @Test
    void aBadModeNamesTheEntryAndField() {
        assertThatThrownBy(() -> load("""
                        rate_limits:
                          policies:
                            - name: trial
                              scope: api_key
                              quota: 1
                              window: 1m
                              mode: dry-run
                        """))
                .isInstanceOfSatisfying(
                        ConfigException.class, e -> assertThat(e.setting()).isEqualTo("rate_limits.policies[0].mode"))
                .hasMessageContaining("enforce or shadow")
                .hasMessageContaining("dry-run");
    }

    @Test
    void fallbackInstancesMustBeBetweenOneAndAThousand() {
        for (String bad : new String[] {"0", "-2", "1001"}) {
            assertThatThrownBy(() -> load("rate_limits:\n  fallback_instances: " + bad + "\n"))
                    .as(bad)
                    .isInstanceOfSatisfying(
                            ConfigException.class,
                            e -> assertThat(e.setting()).isEqualTo("rate_limits.fallback_instances"))
                    .hasMessageContaining("from 1 to 1000");
        }
        assertThatThrownBy(() -> load("rate_limits:\n  fallback_instances: two\n"))
                .isInstanceOfSatisfying(
                        ConfigException.class,
                        e -> assertThat(e.setting()).isEqualTo("rate_limits.fallback_instances"));
    }
}
