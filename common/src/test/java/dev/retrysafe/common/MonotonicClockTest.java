package dev.retrysafe.common;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

class MonotonicClockTest {

    @Test
    void startsAtWallTimeAndNeverGoesBack() {
        Instant before = Instant.now();
        Clock clock = MonotonicClock.clock();
        Instant previous = clock.instant();
        assertThat(Duration.between(before, previous).abs()).isLessThan(Duration.ofSeconds(1));
        for (int i = 0; i < 10_000; i++) {
            Instant now = clock.instant();
            assertThat(now).isAfterOrEqualTo(previous);
            previous = now;
        }
    }

    @Test
    void nanoTimeIsTheJvmCounter() {
        long a = MonotonicClock.nanoTime();
        long b = System.nanoTime();
        long c = MonotonicClock.nanoTime();
        assertThat(b - a).isGreaterThanOrEqualTo(0);
        assertThat(c - b).isGreaterThanOrEqualTo(0);
    }

    @Test
    void isAlwaysUtc() {
        Clock clock = MonotonicClock.clock();
        assertThat(clock.getZone()).isEqualTo(ZoneOffset.UTC);
        assertThat(clock.withZone(ZoneOffset.UTC)).isSameAs(clock);
        assertThatThrownBy(() -> clock.withZone(ZoneId.of("Europe/Paris")))
                .isInstanceOf(UnsupportedOperationException.class)
                .hasMessageContaining("Europe/Paris");
    }
}
