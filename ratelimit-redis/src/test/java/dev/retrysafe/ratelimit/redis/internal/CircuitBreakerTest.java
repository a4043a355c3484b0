package dev.retrysafe.ratelimit.redis.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.retrysafe.testkit.FakeClock;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class CircuitBreakerTest {

    private final FakeClock clock = new FakeClock();
    private final CircuitBreaker breaker = new CircuitBreaker(3, Duration.ofSeconds(5), clock);

    @Test
    void opensAfterConsecutiveFailuresOnly() {
        breaker.onFailure();
        breaker.onFailure();
        breaker.onSuccess(); // the run is broken
        breaker.onFailure();
        breaker.onFailure();
        assertThat(breaker.tryAcquire()).isTrue();
        assertThat(breaker.isOpen()).isFalse();

        breaker.onFailure();

        assertThat(breaker.isOpen()).isTrue();
        assertThat(breaker.tryAcquire()).isFalse();
        assertThat(breaker.remainingOpen()).isEqualTo(Duration.ofSeconds(5));
        clock.advance(Duration.ofMillis(3_500));
        assertThat(breaker.remainingOpen()).isEqualTo(Duration.ofMillis(1_500));
        assertThat(breaker.tryAcquire()).isFalse();
    }

    @Test
    void letsOneProbeThroughAfterTheCoolDownAndClosesOnItsSuccess() {
        open();
        clock.advance(Duration.ofSeconds(5));

        assertThat(breaker.tryAcquire()).isTrue();
        // while the probe is out, nobody else goes
        assertThat(breaker.tryAcquire()).isFalse();
        assertThat(breaker.isOpen()).isTrue();

        breaker.onSuccess();

        assertThat(breaker.isOpen()).isFalse();
        assertThat(breaker.tryAcquire()).isTrue();
        assertThat(breaker.remainingOpen()).isZero();
    }

    @Test
    void aFailedProbeOpensItForAnotherCoolDown() {
        open();
        clock.advance(Duration.ofSeconds(6));
        assertThat(breaker.tryAcquire()).isTrue();

        breaker.onFailure();

        assertThat(breaker.tryAcquire()).isFalse();
        assertThat(breaker.remainingOpen()).isEqualTo(Duration.ofSeconds(5));
    }

    @Test
    void aProbeThatNeverReportsIsReplacedAfterACoolDown() {
        open();
        clock.advance(Duration.ofSeconds(5));
        assertThat(breaker.tryAcquire()).isTrue();

        clock.advance(Duration.ofSeconds(5));

        assertThat(breaker.tryAcquire()).isTrue();
        assertThat(breaker.tryAcquire()).isFalse();
    }

    @Test
    void lateFailuresDoNotExtendTheCoolDown() {
        open();
        clock.advance(Duration.ofSeconds(2));
        breaker.onFailure(); // a call that started before the breaker opened
        assertThat(breaker.remainingOpen()).isEqualTo(Duration.ofSeconds(3));
    }

    @Test
    void validatesItsSettings() {
        assertThatThrownBy(() -> new CircuitBreaker(0, Duration.ofSeconds(1), clock))
                .hasMessageContaining("failuresToOpen must be at least 1: 0");
        assertThatThrownBy(() -> new CircuitBreaker(1, Duration.ZERO, clock))
                .hasMessageContaining("openFor must be positive: PT0S");
    }

    private void open() {
        for (int i = 0; i < 3; i++) {
            assertThat(breaker.tryAcquire()).isTrue();
            breaker.onFailure();
        }
        assertThat(breaker.isOpen()).isTrue();
    }
}
