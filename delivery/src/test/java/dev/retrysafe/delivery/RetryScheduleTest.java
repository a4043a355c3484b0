package dev.retrysafe.delivery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.SplittableRandom;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class RetryScheduleTest {

    private static final RetrySchedule DEFAULTS = RetrySchedule.defaults();
    private static final RetrySchedule NO_JITTER =
            RetrySchedule.builder().jitter(0).build();

    /** Always the same value: the lowest or highest end of the jitter range. */
    private static RandomGenerator constant(double value) {
        return new RandomGenerator() {
            @Override
            public long nextLong() {
                throw new UnsupportedOperationException();
            }

            @Override
            public double nextDouble() {
                return value;
            }
        };
    }

    @Test
    void defaultDelaysAreTheStandardWebhooksTableThenGiveUp() {
        assertThat(DEFAULTS.maxAttempts()).isEqualTo(10);
        List<Duration> expected = List.of(
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
        for (int i = 0; i < expected.size(); i++) {
            assertThat(NO_JITTER.next(i, new Random(1))).contains(expected.get(i));
        }
        assertThat(NO_JITTER.next(10, new Random(1))).isEmpty();
        assertThat(NO_JITTER.next(11, new Random(1))).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(longs = {1L, 42L, 20260301L, 987654321L})
    void jitteredDelaysStayWithinTwentyPercent(long seed) {
        RandomGenerator random = new SplittableRandom(seed);
        for (int round = 0; round < 1_000; round++) {
            for (int attempt = 0; attempt < DEFAULTS.maxAttempts(); attempt++) {
                long base = RetrySchedule.DEFAULT_DELAYS.get(attempt).toMillis();
                long delay = DEFAULTS.next(attempt, random).orElseThrow().toMillis();
                assertThat(delay)
                        .as("seed %d, attempt %d", seed, attempt)
                        .isBetween(Math.round(base * 0.8), Math.round(base * 1.2));
            }
        }
    }

    @Test
    void jitterReachesBothEndsAndSpreads() {
        assertThat(DEFAULTS.next(1, constant(0))).contains(Duration.ofSeconds(4));
        assertThat(DEFAULTS.next(1, constant(1))).contains(Duration.ofSeconds(6));
        RandomGenerator random = new SplittableRandom(3);
        long distinct = java.util.stream.IntStream.range(0, 100)
                .mapToObj(i -> DEFAULTS.next(3, random).orElseThrow())
                .distinct()
                .count();
        assertThat(distinct).as("jitter spreads retries").isGreaterThan(90);
    }

    @Test
    void firstAttemptIsAlwaysImmediate() {
        assertThat(DEFAULTS.next(0, constant(1))).contains(Duration.ZERO);
    }

    @Test
    void retryAfterPostponesButNeverHastensAndIsCapped() {
        Random random = new Random(1);
        assertThat(NO_JITTER.nextAfter(1, FakeSender.status(503, Duration.ofMinutes(2)), random))
                .as("longer than the 5 s scheduled")
                .contains(Duration.ofMinutes(2));
        assertThat(NO_JITTER.nextAfter(2, FakeSender.status(503, Duration.ofSeconds(1)), random))
                .as("shorter than the 5 min scheduled")
                .contains(Duration.ofMinutes(5));
        assertThat(NO_JITTER.nextAfter(1, FakeSender.status(429, Duration.ofDays(3)), random))
                .as("capped at 1 h")
                .contains(Duration.ofHours(1));
        assertThat(NO_JITTER.nextAfter(10, FakeSender.status(429, Duration.ofSeconds(1)), random))
                .as("Retry-After never extends the schedule")
                .isEmpty();
    }

    @Test
    void overloadSlowsTheEndpointDown() {
        assertThat(DEFAULTS.slowDownFor(FakeSender.status(429))).contains(Duration.ofSeconds(10));
        assertThat(DEFAULTS.slowDownFor(FakeSender.status(502))).contains(Duration.ofSeconds(10));
        assertThat(DEFAULTS.slowDownFor(FakeSender.status(503, Duration.ofSeconds(30))))
                .contains(Duration.ofSeconds(30));
        assertThat(DEFAULTS.slowDownFor(FakeSender.status(504, Duration.ofDays(1))))
                .contains(Duration.ofHours(1));
        assertThat(DEFAULTS.slowDownFor(FakeSender.timeout())).contains(Duration.ofSeconds(10));
        assertThat(DEFAULTS.slowDownFor(FakeSender.status(500))).isEmpty();
        assertThat(DEFAULTS.slowDownFor(FakeSender.status(200))).isEmpty();
        assertThat(RetrySchedule.isGone(FakeSender.status(410))).isTrue();
        assertThat(RetrySchedule.isGone(FakeSender.status(404))).isFalse();
    }

    @Test
    void invalidSchedulesAreRefusedWithTheParameterNamed() {
        assertThatThrownBy(() -> RetrySchedule.builder().delays(List.of()).build())
                .hasMessageContaining("delays must hold 1 to 100");
        assertThatThrownBy(() ->
                        RetrySchedule.builder().delays(Duration.ofSeconds(1)).build())
                .hasMessageContaining("delays[0] must be zero");
        assertThatThrownBy(() -> RetrySchedule.builder()
                        .delays(Duration.ZERO, Duration.ofSeconds(-1))
                        .build())
                .hasMessageContaining("delays[1]");
        assertThatThrownBy(() -> RetrySchedule.builder().jitter(1.5).build()).hasMessageContaining("jitter");
        assertThatThrownBy(() -> RetrySchedule.builder().jitter(Double.NaN).build())
                .hasMessageContaining("jitter");
        assertThatThrownBy(() -> NO_JITTER.next(-1, new Random())).hasMessageContaining("attemptsMade");
    }

    @Test
    void compressedSchedulesAreAllowedForTests() {
        RetrySchedule fast = RetrySchedule.builder()
                .delays(Duration.ZERO, Duration.ofMillis(10))
                .jitter(0)
                .build();
        assertThat(fast.next(1, new Random())).isEqualTo(Optional.of(Duration.ofMillis(10)));
        assertThat(fast.next(2, new Random())).isEmpty();
    }
}
