package dev.retrysafe.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Set;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

class RetryPolicyTest {

    @Test
    void defaultsAreTheDocumentedOnes() {
        RetryPolicy p = RetryPolicy.defaults();
        assertThat(p.maxAttempts()).isEqualTo(5);
        assertThat(p.baseDelay()).isEqualTo(Duration.ofMillis(100));
        assertThat(p.maxDelay()).isEqualTo(Duration.ofSeconds(20));
        assertThat(p.deadline()).isEqualTo(Duration.ofSeconds(30));
        assertThat(p.maxRetryAfter()).isEqualTo(Duration.ofSeconds(20));
        assertThat(p.retryAfterSpread()).isEqualTo(1.0);
        assertThat(p.retryableStatuses()).containsExactly(408, 429, 500, 502, 503, 504);
        assertThat(p.retryKeyInUse()).isTrue();
        assertThat(p.generateIdempotencyKeys()).isTrue();
        assertThat(p.attemptTimeout()).isNull();
        assertThat(p.pacing()).isTrue();
        assertThat(p.toBuilder().build()).isEqualTo(p);
    }

    static Stream<Arguments> badValues() {
        return Stream.of(
                bad(b -> b.maxAttempts(0), "maxAttempts must be 1..100, was 0"),
                bad(b -> b.maxAttempts(101), "maxAttempts must be 1..100, was 101"),
                bad(b -> b.baseDelay(Duration.ZERO), "baseDelay must be positive, was PT0S"),
                bad(b -> b.baseDelay(Duration.ofSeconds(30)), "baseDelay must be at most maxDelay (PT20S), was PT30S"),
                bad(
                        b -> b.maxDelay(Duration.ofHours(2)).baseDelay(Duration.ofSeconds(1)),
                        "maxDelay must be at most PT1H, was PT2H"),
                bad(b -> b.deadline(Duration.ofMillis(-1)), "deadline must be positive, was PT-0.001S"),
                bad(b -> b.deadline(Duration.ofDays(2)), "deadline must be at most PT24H, was PT48H"),
                bad(b -> b.maxRetryAfter(Duration.ofSeconds(-1)), "maxRetryAfter must be 0..PT24H, was PT-1S"),
                bad(b -> b.retryAfterSpread(-0.5), "retryAfterSpread must be 0..10.0, was -0.5"),
                bad(b -> b.retryAfterSpread(Double.NaN), "retryAfterSpread must be 0..10.0, was NaN"),
                bad(b -> b.retryableStatuses(Set.of(503, 99)), "retryableStatuses must be 100..599, has 99"),
                bad(b -> b.attemptTimeout(Duration.ZERO), "attemptTimeout must be positive, was PT0S"));
    }

    private static Arguments bad(UnaryOperator<RetryPolicy.Builder> change, String message) {
        return Arguments.of(change, message);
    }

    @ParameterizedTest(name = "{1}")
    @MethodSource("badValues")
    void rejectsEachBadValueNamingItAndTheValue(UnaryOperator<RetryPolicy.Builder> change, String message) {
        assertThatThrownBy(() -> change.apply(RetryPolicy.builder()).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(message);
    }

    @ParameterizedTest(name = "{0} with key {1}: {2}")
    @CsvSource({
        "GET, false, true",
        "HEAD, false, true",
        "PUT, false, true",
        "DELETE, false, true",
        "OPTIONS, false, true",
        "POST, false, false",
        "POST, true, true",
        "PATCH, false, false",
        "PATCH, true, true",
        "CONNECT, true, false",
        "TRACE, false, false",
        "PURGE, true, false"
    })
    void mayRetryOnlyIdempotentMethodsAndKeyedPostAndPatch(String method, boolean hasKey, boolean expected) {
        assertThat(RetryPolicy.mayRetry(method, hasKey)).isEqualTo(expected);
    }

    @Test
    void retryableStatusesAreExactlyTheConfiguredOnes() {
        RetryPolicy p = RetryPolicy.defaults();
        for (int status = 100; status <= 599; status++) {
            assertThat(p.isRetryable(status))
                    .as("status %d", status)
                    .isEqualTo(Set.of(408, 429, 500, 502, 503, 504).contains(status));
        }
        RetryPolicy only503 =
                RetryPolicy.builder().retryableStatuses(Set.of(503)).build();
        assertThat(only503.isRetryable(503)).isTrue();
        assertThat(only503.isRetryable(500)).isFalse();
    }

    @Test
    void backoffBoundDoublesUpToTheCapWithoutOverflow() {
        RetryPolicy p = RetryPolicy.builder()
                .baseDelay(Duration.ofMillis(100))
                .maxDelay(Duration.ofSeconds(2))
                .build();
        assertThat(p.backoffBound(0)).isEqualTo(Duration.ofMillis(100));
        assertThat(p.backoffBound(1)).isEqualTo(Duration.ofMillis(200));
        assertThat(p.backoffBound(4)).isEqualTo(Duration.ofMillis(1600));
        assertThat(p.backoffBound(5)).isEqualTo(Duration.ofSeconds(2));
        assertThat(p.backoffBound(63)).isEqualTo(Duration.ofSeconds(2));
        assertThat(p.backoffBound(Integer.MAX_VALUE)).isEqualTo(Duration.ofSeconds(2));
        assertThatThrownBy(() -> p.backoffBound(-1)).hasMessage("retry must not be negative, was -1");
    }

    @Test
    void waitBeforeNeverUndercutsEvenAHugeRetryAfter() {
        Duration centuries = Duration.ofSeconds(Long.MAX_VALUE);
        assertThat(RetryPolicy.defaults().waitBefore(0, centuries, new java.util.Random(1)))
                .isEqualTo(centuries);
        assertThat(RetryPolicy.defaults().waitBefore(3, Duration.ofDays(3650), new java.util.Random(1)))
                .isBetween(Duration.ofDays(3650), Duration.ofDays(3650).plusSeconds(20));
        assertThatThrownBy(() -> RetryPolicy.defaults().waitBefore(0, Duration.ofSeconds(-1), new java.util.Random(1)))
                .hasMessage("retryAfter must not be negative, was PT-1S");
    }
}
