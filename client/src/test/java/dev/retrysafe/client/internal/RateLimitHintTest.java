package dev.retrysafe.client.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpHeaders;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class RateLimitHintTest {

    private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");

    private static RateLimitHint hint(Map<String, List<String>> headers) {
        return RateLimitHint.of(HttpHeaders.of(headers, (a, b) -> true), NOW);
    }

    @Test
    void theDraftsFieldWithUnitsLeftIsAvailable() {
        assertThat(RateLimitHint.fromStandard("\"default\";r=50;t=30")).isEqualTo(new RateLimitHint.Available());
        assertThat(RateLimitHint.fromStandard("\"key\";r=97;t=1, \"account\";r=996;t=1"))
                .isEqualTo(new RateLimitHint.Available());
    }

    @Test
    void anExhaustedPolicyWaitsForTheLongestResetOfTheExhaustedOnes() {
        assertThat(RateLimitHint.fromStandard("\"default\";r=0;t=30"))
                .isEqualTo(new RateLimitHint.Exhausted(Duration.ofSeconds(30)));
        assertThat(RateLimitHint.fromStandard("\"key\";r=0;t=5, \"account\";r=0;t=40, \"ip\";r=3;t=90"))
                .isEqualTo(new RateLimitHint.Exhausted(Duration.ofSeconds(40)));
        assertThat(RateLimitHint.fromStandard("default;r=0;t=7"))
                .as("a token name, as in earlier drafts")
                .isEqualTo(new RateLimitHint.Exhausted(Duration.ofSeconds(7)));
    }

    @Test
    void anExhaustedPolicyWithoutResetSaysNothing() {
        assertThat(RateLimitHint.fromStandard("\"default\";r=0")).isEqualTo(new RateLimitHint.None());
    }

    @ParameterizedTest(name = "''{0}''")
    @ValueSource(
            strings = {
                "",
                "\"default\";t=30",
                "\"default\";r=abc",
                "\"default\";r=0;t=30,",
                "\"default\" r=0",
                "\"unterminated;r=0;t=3",
                "default;R=0;t=3"
            })
    void malformedFieldsSayNothing(String value) {
        assertThat(RateLimitHint.fromStandard(value)).isEqualTo(new RateLimitHint.None());
    }

    @Test
    void deFactoHeadersWithEpochReset() {
        long reset = NOW.getEpochSecond() + 12;
        assertThat(hint(Map.of(
                        "X-RateLimit-Remaining", List.of("0"), "X-RateLimit-Reset", List.of(Long.toString(reset)))))
                .isEqualTo(new RateLimitHint.Exhausted(Duration.ofSeconds(12)));
        assertThat(hint(Map.of(
                        "X-RateLimit-Remaining",
                        List.of("0"),
                        "X-RateLimit-Reset",
                        List.of(Long.toString(NOW.getEpochSecond() - 5)))))
                .as("a reset in the past")
                .isEqualTo(new RateLimitHint.Available());
    }

    @Test
    void deFactoHeadersWithDeltaReset() {
        assertThat(hint(Map.of("X-RateLimit-Remaining", List.of("0"), "X-RateLimit-Reset", List.of("3"))))
                .isEqualTo(new RateLimitHint.Exhausted(Duration.ofSeconds(3)));
        assertThat(hint(Map.of("X-RateLimit-Remaining", List.of("0"), "X-RateLimit-Reset", List.of("1.5"))))
                .isEqualTo(new RateLimitHint.Exhausted(Duration.ofMillis(1500)));
        assertThat(hint(Map.of("X-RateLimit-Remaining", List.of("4"), "X-RateLimit-Reset", List.of("3"))))
                .isEqualTo(new RateLimitHint.Available());
        assertThat(hint(Map.of("X-RateLimit-Remaining", List.of("0"), "X-RateLimit-Reset", List.of("soon"))))
                .isEqualTo(new RateLimitHint.None());
        assertThat(hint(Map.of("X-RateLimit-Remaining", List.of("-1"), "X-RateLimit-Reset", List.of("3"))))
                .isEqualTo(new RateLimitHint.None());
    }

    @Test
    void theStandardFieldWinsOverTheDeFactoOnes() {
        assertThat(hint(Map.of(
                        "RateLimit",
                        List.of("\"default\";r=5;t=1"),
                        "X-RateLimit-Remaining",
                        List.of("0"),
                        "X-RateLimit-Reset",
                        List.of("30"))))
                .isEqualTo(new RateLimitHint.Available());
        assertThat(hint(Map.of())).isEqualTo(new RateLimitHint.None());
    }
}
