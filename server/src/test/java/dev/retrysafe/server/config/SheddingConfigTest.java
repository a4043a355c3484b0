package dev.retrysafe.server.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.retrysafe.servlet.LoadShedder.Priority;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code rate_limits.shedding}: defaults, the bounds taken from the pool, and every refusal naming its field. */
class SheddingConfigTest {

    @TempDir
    Path dir;

    private ServerConfig load(String text) throws IOException {
        Path file = dir.resolve("config.yaml");
        Files.writeString(file, text);
        return ConfigLoader.load(file, Map.of());
    }

    @Test
    void defaultsShedReportsFirstAndNeverPaymentsOrRefunds() {
        SheddingConfig shedding = ConfigLoader.load(null, Map.of()).limits().shedding();

        assertThat(shedding.enabled()).isTrue();
        assertThat(shedding.retryAfter()).isEqualTo(Duration.ofSeconds(2));
        assertThat(shedding.priorities())
                .containsEntry("payments", Priority.CRITICAL)
                .containsEntry("refunds", Priority.CRITICAL)
                .containsEntry("reports", Priority.LOW)
                .containsEntry("jobs", Priority.LOW)
                .containsEntry("events", Priority.NORMAL)
                .containsOnlyKeys(SheddingConfig.ROUTE_GROUPS);
        assertThat(shedding.lowAt(10)).as("the pool's size").isEqualTo(10);
        assertThat(shedding.normalAt(10)).as("four times the pool's size").isEqualTo(40);
    }

    @Test
    void aFileSetsBoundsAndChangesOnePriority() throws IOException {
        SheddingConfig shedding = load("""
                        rate_limits:
                          shedding:
                            low_at: 3
                            normal_at: 7
                            retry_after: 5s
                            priorities:
                              events: low
                        """).limits().shedding();

        assertThat(shedding.lowAt(10)).isEqualTo(3);
        assertThat(shedding.normalAt(10)).isEqualTo(7);
        assertThat(shedding.retryAfter()).isEqualTo(Duration.ofSeconds(5));
        assertThat(shedding.priorities())
                .containsEntry("events", Priority.LOW)
                .containsEntry("payments", Priority.CRITICAL);
    }

    @Test
    void mistakesNameTheirField() {
        assertThatThrownBy(() -> load("rate_limits: {shedding: {priorities: {payments: urgent}}}"))
                .isInstanceOf(ConfigException.class)
                .hasMessage("rate_limits.shedding.priorities.payments must be critical, normal or low, was 'urgent'");
        assertThatThrownBy(() -> load("rate_limits: {shedding: {priorities: {paymnets: low}}}"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("rate_limits.shedding.priorities.paymnets");
        assertThatThrownBy(() -> load("rate_limits: {shedding: {low_at: 9, normal_at: 3}}"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("rate_limits.shedding.normal_at")
                .hasMessageContaining("must not be below rate_limits.shedding.low_at (9)");
        assertThatThrownBy(() -> load("rate_limits: {shedding: {retry_after: 1500ms}}"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("rate_limits.shedding.retry_after");
        assertThatThrownBy(() -> load("rate_limits: {shedding: {low_at: -1}}"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("rate_limits.shedding.low_at");
    }
}
