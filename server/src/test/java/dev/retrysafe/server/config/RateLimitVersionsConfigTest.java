package dev.retrysafe.server.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.retrysafe.ratelimit.Policy;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.assertj.core.api.AbstractThrowableAssert;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@code rate_limits.version}, {@code docs_url}, {@code previous[]} and {@code allow_short_notice}. */
class RateLimitVersionsConfigTest {

    private static final String V1 = """
                    - version: v1
                      deprecated_at: 2026-12-01T00:00:00Z
                      sunset: 2027-03-31T00:00:00Z
                      docs_url: https://example.com/rate-limits/v1
                      policies:
                        - name: key
                          scope: api_key
                          quota: 100
                          window: 10s
            """;

    @TempDir
    Path dir;

    private RateLimitConfig load(String rateLimits) throws IOException {
        Path file = dir.resolve("config.yaml");
        Files.writeString(file, "rate_limits:\n" + rateLimits.indent(2));
        return ConfigLoader.load(file, Map.of()).rateLimits();
    }

    private AbstractThrowableAssert<?, ? extends Throwable> refused(String rateLimits, String setting) {
        return assertThatThrownBy(() -> load(rateLimits))
                .isInstanceOfSatisfying(
                        ConfigException.class, e -> assertThat(e.setting()).isEqualTo(setting))
                .hasMessageContaining(setting);
    }

    @Test
    void unversionedByDefault() {
        RateLimitVersions versions =
                ConfigLoader.load(null, Map.of()).rateLimits().versions();

        assertThat(versions.enabled()).isFalse();
        assertThat(versions.previous()).isEmpty();
        assertThat(versions.allowShortNotice()).isFalse();
    }

    @Test
    void readsEveryField() throws IOException {
        RateLimitConfig limits = load("""
                version: v2
                docs_url: https://example.com/rate-limits/v2
                allow_short_notice: true
                previous:
                """ + V1 + """
                policies:
                  - name: key
                    scope: api_key
                    quota: 50
                    window: 10s
                """);

        RateLimitVersions versions = limits.versions();
        assertThat(versions.version()).isEqualTo("v2");
        assertThat(versions.docsUrl()).isEqualTo("https://example.com/rate-limits/v2");
        assertThat(versions.allowShortNotice()).isTrue();
        RateLimitVersions.Previous v1 = versions.previous().getFirst();
        assertThat(v1.version()).isEqualTo("v1");
        assertThat(v1.deprecatedAt()).isEqualTo(Instant.parse("2026-12-01T00:00:00Z"));
        assertThat(v1.sunset()).isEqualTo(Instant.parse("2027-03-31T00:00:00Z"));
        assertThat(v1.docsUrl()).isEqualTo("https://example.com/rate-limits/v1");
        assertThat(v1.policies()).extracting(Policy::quota).containsExactly(100L);
        assertThat(limits.policies()).extracting(Policy::quota).containsExactly(50L);
    }

    @Test
    void aVersionNeedsDocsAndPreviousSetsNeedAVersion() {
        refused("version: v2\n", "rate_limits.docs_url").hasMessageContaining("absolute http(s) URL");
        refused("previous:\n" + V1, "rate_limits.previous").hasMessageContaining("needs rate_limits.version");
        refused("version: v 2\ndocs_url: https://example.com/\n", "rate_limits.version");
        refused("version: v2\ndocs_url: /docs/rate-limits\n", "rate_limits.docs_url");
        refused("allow_short_notice: maybe\n", "rate_limits.allow_short_notice");
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "version: v2| rate_limits.previous[0].version| used twice",
                "deprecated_at: 2027-04-01T00:00:00Z| rate_limits.previous[0].sunset| must come after",
                "sunset: next spring| rate_limits.previous[0].sunset| RFC 3339",
                "deprecated_at: ''| rate_limits.previous[0].deprecated_at| is required",
                "docs_url: mailto:ops@example.com| rate_limits.previous[0].docs_url| absolute http(s) URL",
                "colour: blue| rate_limits.previous[0].colour| unknown setting",
            })
    void everyErrorInAPreviousSetNamesItsField(String change, String setting, String message) throws IOException {
        String key = change.substring(0, change.indexOf(':'));
        StringBuilder entry = new StringBuilder();
        boolean replaced = false;
        for (String line : V1.lines().toList()) {
            String field = line.stripLeading().replace("- ", "");
            String indent =
                    line.substring(0, line.length() - line.stripLeading().length());
            if (field.startsWith(key + ":")) {
                entry.append(indent)
                        .append(line.stripLeading().startsWith("- ") ? "- " : "")
                        .append(change);
                replaced = true;
            } else {
                entry.append(line);
                if (field.startsWith("docs_url:") && !replaced && key.equals("colour")) {
                    entry.append('\n').append(indent).append(change);
                }
            }
            entry.append('\n');
        }
        refused("version: v2\ndocs_url: https://example.com/v2\nprevious:\n" + entry, setting)
                .hasMessageContaining(message);
    }

    @Test
    void aPreviousSetsPoliciesAreCheckedLikeTheCurrentOnesWithTheirPathNamed() {
        refused("""
                        version: v2
                        docs_url: https://example.com/v2
                        previous:
                          - version: v1
                            deprecated_at: 2026-12-01T00:00:00Z
                            sunset: 2027-03-31T00:00:00Z
                            docs_url: https://example.com/v1
                            policies:
                              - name: key
                                scope: api_key
                                quota: many
                                window: 10s
                        """, "rate_limits.previous[0].policies[0].quota").hasMessageContaining("whole number");
        refused("""
                        version: v2
                        docs_url: https://example.com/v2
                        previous:
                          - version: v1
                            deprecated_at: 2026-12-01T00:00:00Z
                            sunset: 2027-03-31T00:00:00Z
                            docs_url: https://example.com/v1
                        """, "rate_limits.previous[0].policies").hasMessageContaining("is required");
        refused("""
                        version: v2
                        docs_url: https://example.com/v2
                        previous:
                          - version: v1
                            deprecated_at: 2026-12-01T00:00:00Z
                            sunset: 2027-03-31T00:00:00Z
                            docs_url: https://example.com/v1
                            policies:
                              - {name: key, scope: api_key, quota: 1, window: 1s}
                              - {name: key, scope: account, quota: 1, window: 1s}
                        """, "rate_limits.previous[0].policies").hasMessageContaining("'key' is used twice");
    }

    private static Policy policy(long quota, Duration window, long burst) {
        return Policy.builder("key").limit(quota, window).burst(burst).build();
    }

    @Test
    void aLimitGoesDownWhenItsRateOrWhatItAllowsAtOnceDoes() {
        Policy before = policy(100, Duration.ofMinutes(1), 100);

        assertThat(RateLimitVersions.lowers(before, policy(50, Duration.ofMinutes(1), 100)))
                .as("lower quota")
                .isTrue();
        assertThat(RateLimitVersions.lowers(before, policy(100, Duration.ofMinutes(1), 20)))
                .as("lower burst")
                .isTrue();
        assertThat(RateLimitVersions.lowers(before, policy(6000, Duration.ofHours(1), 100)))
                .as("the same rate over a longer window")
                .isFalse();
        assertThat(RateLimitVersions.lowers(before, policy(5999, Duration.ofHours(1), 100)))
                .as("slightly slower over a longer window")
                .isTrue();
        assertThat(RateLimitVersions.lowers(before, policy(200, Duration.ofMinutes(1), 200)))
                .isFalse();
    }

    @Test
    void theNinetyDayRuleNamesThePolicyAndTheEarliestSunset() throws IOException {
        RateLimitConfig limits = load("""
                version: v2
                docs_url: https://example.com/rate-limits/v2
                previous:
                """ + V1 + """
                policies:
                  - name: key
                    scope: api_key
                    quota: 50
                    window: 10s
                """);
        Instant now = Instant.parse("2027-01-15T00:00:00Z");
        RateLimitVersions versions = limits.versions();

        assertThatThrownBy(() -> versions.checkNotice(limits.policies(), v -> now, now))
                .isInstanceOfSatisfying(
                        ConfigException.class, e -> assertThat(e.setting()).isEqualTo("rate_limits.previous[0].sunset"))
                .hasMessageContaining("policy 'key' of set v1")
                .hasMessageContaining("75 days' notice")
                .hasMessageContaining("2027-03-31T00:00:00Z")
                .hasMessageContaining("to 2027-04-15T00:00:00Z or later")
                .hasMessageContaining("rate_limits.allow_short_notice: true");
        // announced early enough: restarting later does not shorten the notice given
        versions.checkNotice(limits.policies(), v -> Instant.parse("2026-12-01T00:00:00Z"), now);
        // past the sunset nobody is on v1 any more
        versions.checkNotice(limits.policies(), v -> now, Instant.parse("2027-03-31T00:00:00Z"));
        // raising limits needs no notice
        versions.checkNotice(
                List.of(Policy.builder("key").limit(500, Duration.ofSeconds(10)).build()), v -> now, now);
        limits.withVersions(new RateLimitVersions(versions.version(), versions.docsUrl(), versions.previous(), true))
                .versions()
                .checkNotice(limits.policies(), v -> now, now);
    }
}
