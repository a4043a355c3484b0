package dev.retrysafe.ratelimit.redis.internal.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** When a reply is polled for, and for how long, on times given by the test. */
class SpinWaitTest {

    private static final long LIMIT = SpinWait.DEFAULT_LIMIT.toNanos();
    private static final long PAUSE = SpinWait.PAUSE.toNanos();
    /** A start far from zero and near the end of the long range: the arithmetic must not overflow. */
    private static final long T0 = Long.MAX_VALUE - 5 * PAUSE;

    @Test
    void pollsUpToTheLimitOrTheDeadlineWhicheverComesFirst() {
        SpinWait spin = new SpinWait(SpinWait.DEFAULT_LIMIT, 2);

        assertThat(spin.pollUntil(T0, T0 + 1_000 * LIMIT)).isEqualTo(T0 + LIMIT);
        assertThat(spin.pollUntil(T0, T0 + LIMIT / 2)).isEqualTo(T0 + LIMIT / 2);
    }

    @Test
    void neverPollsWithALimitOfZeroOrOnOneProcessor() {
        assertThat(new SpinWait(Duration.ZERO, 2).pollUntil(T0, T0 + PAUSE)).isEqualTo(T0);
        assertThat(new SpinWait(SpinWait.DEFAULT_LIMIT, 1).pollUntil(T0, T0 + PAUSE))
                .isEqualTo(T0);
    }

    @Test
    void pausesForASecondAfterEightRepliesInARowOutlastedThePollThenPollsAgain() {
        SpinWait spin = new SpinWait(SpinWait.DEFAULT_LIMIT, 2);
        long now = T0;
        for (int i = 0; i < SpinWait.MISSES_TO_PAUSE; i++) {
            assertThat(spin.pollUntil(now, now + PAUSE)).as("wait %d", i).isEqualTo(now + LIMIT);
            spin.polled(false, now + LIMIT);
        }
        long pausedAt = now + LIMIT;

        assertThat(spin.pollUntil(pausedAt, pausedAt + PAUSE)).isEqualTo(pausedAt);
        assertThat(spin.pollUntil(pausedAt + PAUSE - 1, pausedAt + 2 * PAUSE)).isEqualTo(pausedAt + PAUSE - 1);
        long resumed = pausedAt + PAUSE;
        assertThat(spin.pollUntil(resumed, resumed + PAUSE)).isEqualTo(resumed + LIMIT);
    }

    @Test
    void aReplyWithinThePollStartsTheCountOfMissesAgain() {
        SpinWait spin = new SpinWait(SpinWait.DEFAULT_LIMIT, 2);
        long now = T0;
        for (int round = 0; round < 3; round++) {
            for (int i = 0; i < SpinWait.MISSES_TO_PAUSE - 1; i++) {
                spin.polled(false, now);
            }
            spin.polled(true, now);
        }

        assertThat(spin.pollUntil(now, now + PAUSE)).isEqualTo(now + LIMIT);
    }

    @Test
    void refusesALimitBelowZeroOrAboveTenMilliseconds() {
        assertThatThrownBy(() -> new SpinWait(Duration.ofNanos(-1), 2)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new SpinWait(Duration.ofMillis(11), 2)).isInstanceOf(IllegalArgumentException.class);
    }
}
