package dev.retrysafe.jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.retrysafe.testkit.ThrowawayDatabase;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class JobsBuilderTest {

    private final ThrowawayDatabase database = ThrowawayDatabase.h2("jobs_builder");

    @AfterAll
    void close() {
        database.close();
    }

    private Jobs.Builder builder() {
        return Jobs.builder(database.dataSource());
    }

    @Test
    void rejectsSettingsOutOfRangeNamingThemAndTheirValue() {
        assertThatThrownBy(() -> builder().lease(Duration.ofMillis(999)))
                .hasMessage("lease must be PT1S to PT1H, was PT0.999S");
        assertThatThrownBy(() -> builder().lease(Duration.ofHours(2))).hasMessageContaining("lease");
        assertThatThrownBy(() -> builder().maxAttempts(0)).hasMessage("maxAttempts must be 1 to 100, was 0");
        assertThatThrownBy(() -> builder().workers(0)).hasMessageContaining("workers");
        assertThatThrownBy(() -> builder().resultRetention(Duration.ZERO)).hasMessageContaining("resultRetention");
        assertThatThrownBy(() -> builder().recordRetention(Duration.ofDays(4000)))
                .hasMessageContaining("recordRetention");
        assertThatThrownBy(() -> builder().pollInterval(Duration.ZERO)).hasMessageContaining("pollInterval");
        assertThatThrownBy(() -> builder().shutdownTimeout(Duration.ofSeconds(-1)))
                .hasMessageContaining("shutdownTimeout");
        assertThatThrownBy(() -> builder().purgeInterval(Duration.ofMillis(10))).hasMessageContaining("purgeInterval");
        assertThatThrownBy(() -> builder().instanceId("")).hasMessageContaining("instanceId");
        assertThatThrownBy(() -> builder().clock(null)).hasMessage("clock");
        assertThatThrownBy(() -> Jobs.builder(null)).hasMessage("dataSource");
    }

    @Test
    void rejectsABadKindAZeroLimitAndASecondHandlerForAKind() {
        JobHandler handler = context -> JobOutput.of("text/plain", new byte[0]);

        assertThatThrownBy(() -> builder().handler("Bad Kind", handler, 1)).hasMessageContaining("kind");
        assertThatThrownBy(() -> builder().handler("report", handler, 0))
                .hasMessage("maxConcurrency must be 1 to 10000, was 0");
        assertThatThrownBy(() -> builder().handler("report", handler, 1).handler("report", handler, 2))
                .hasMessage("kind 'report' has a handler already");
    }

    @Test
    void buildsWithDefaultsAndARandomInstanceId() {
        try (Jobs first = builder().build();
                Jobs second = builder().instanceId("api-1").build()) {
            assertThat(first.instanceId()).matches("jobs-[0-9a-f]{8}");
            assertThat(second.instanceId()).isEqualTo("api-1");
            assertThat(first.metrics().running()).isZero();
        }
    }
}
