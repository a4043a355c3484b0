package dev.retrysafe.server.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class WebhooksConfigTest {

    @TempDir
    Path dir;

    private Path yaml(String text) throws IOException {
        Path file = dir.resolve("retrysafe.yaml");
        Files.writeString(file, text);
        return file;
    }

    @Test
    void defaultsAreTheStandardWebhooksOnes() {
        WebhooksConfig w = ConfigLoader.load(null, Map.of()).webhooks();

        assertThat(w.timeout()).isEqualTo(Duration.ofSeconds(5));
        assertThat(w.retrySchedule())
                .containsExactly(
                        Duration.ZERO,
                        Duration.ofSeconds(5),
                        Duration.ofMinutes(5),
                        Duration.ofMinutes(30),
                        Duration.ofHours(2),
                        Duration.ofHours(5),
                        Duration.ofHours(10),
                        Duration.ofHours(14),
                        Duration.ofHours(20),
                        Duration.ofHours(24));
        assertThat(w.jitter()).isEqualTo(0.2);
        assertThat(w.disableAfter()).isEqualTo(Duration.ofDays(5));
        assertThat(w.maxInFlightPerEndpoint()).isEqualTo(10);
        assertThat(w.allowPrivateTargets()).isEmpty();
        assertThat(w.requireHttps()).isTrue();
        assertThat(w.retention()).isEqualTo(Duration.ofDays(30));
    }

    @Test
    void fileSetsEverySetting() throws IOException {
        WebhooksConfig w = ConfigLoader.load(yaml("""
                webhooks:
                  timeout: 250ms
                  retry_schedule: [0s, 200ms, 1s]
                  jitter: 0
                  disable_after: 1h
                  max_in_flight_per_endpoint: 3
                  allow_private_targets: ["127.0.0.0/8", "::1/128"]
                  require_https: false
                  retention: 7d
                """), Map.of()).webhooks();

        assertThat(w)
                .isEqualTo(new WebhooksConfig(
                        Duration.ofMillis(250),
                        List.of(Duration.ZERO, Duration.ofMillis(200), Duration.ofSeconds(1)),
                        0,
                        Duration.ofHours(1),
                        3,
                        List.of("127.0.0.0/8", "::1/128"),
                        false,
                        Duration.ofDays(7)));
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "timeout: 0ms                         | webhooks.timeout",
                "timeout: 11m                         | webhooks.timeout",
                "retry_schedule: []                   | webhooks.retry_schedule",
                "retry_schedule: [5s, 10s]            | webhooks.retry_schedule",
                "retry_schedule: [0s, 31d]            | webhooks.retry_schedule",
                "retry_schedule: [0s, soon]           | webhooks.retry_schedule",
                "jitter: 1.5                          | webhooks.jitter",
                "disable_after: 30s                   | webhooks.disable_after",
                "max_in_flight_per_endpoint: 0        | webhooks.max_in_flight_per_endpoint",
                "allow_private_targets: [localhost]   | webhooks.allow_private_targets",
                "require_https: maybe                 | webhooks.require_https",
                "retries: 3                           | webhooks.retries",
                "retention: 59m                       | webhooks.retention",
                "retention: 3651d                     | webhooks.retention",
                "retention: forever                   | webhooks.retention",
            })
    void badValuesAreRefusedNamingTheSetting(String line, String setting) throws IOException {
        Path file = yaml("webhooks:\n  " + line.strip() + "\n");

        assertThatThrownBy(() -> ConfigLoader.load(file, Map.of()))
                .isInstanceOf(ConfigException.class)
                .satisfies(e -> assertThat(((ConfigException) e).setting()).isEqualTo(setting));
    }
}
