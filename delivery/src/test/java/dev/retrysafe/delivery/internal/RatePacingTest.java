package dev.retrysafe.delivery.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

class RatePacingTest {

    private static final long SECOND = 1_000_000_000L;
    private static final long NOW = 1_767_225_600L * SECOND;
    private static final int[] RATES = {1, 2, 3, 7, 10, 60, 333, 1000, 9999, 10_000};

    @ParameterizedTest
    @CsvSource({"1, 1000000000", "2, 500000000", "3, 333333334", "7, 142857143", "10000, 100000", "9999, 100011"})
    void intervalIsRoundedUpSoTheRateIsNeverExceeded(int rate, long interval) {
        assertThat(RatePacing.intervalNanos(rate)).isEqualTo(interval);
        assertThat(interval * rate).isGreaterThanOrEqualTo(SECOND);
    }

    @Test
    void anUnusedOrIdleScheduleStartsNowWithOneSlotAndNoBurst() {
        RatePacing.Window never = RatePacing.window(null, NOW, 0, 5);
        RatePacing.Window idle = RatePacing.window(NOW - 3600 * SECOND, NOW, 0, 5);

        assertThat(never).isEqualTo(new RatePacing.Window(NOW, SECOND / 5, 1));
        assertThat(idle).isEqualTo(never);
    }

    @Test
    void lookaheadReservesEverySlotUpToItsEndIncluded() {
        RatePacing.Window w = RatePacing.window(null, NOW, SECOND, 4);

        assertThat(w.capacity()).isEqualTo(5);
        assertThat(LongStream.range(0, 5).map(i -> w.slot((int) i) - NOW))
                .containsExactly(0L, 250_000_000L, 500_000_000L, 750_000_000L, SECOND);
        assertThat(w.nextFreeAfter(5)).isEqualTo(NOW + 5 * SECOND / 4);
        assertThat(w.nextFreeAfter(2)).isEqualTo(NOW + SECOND / 2);
    }

    @Test
    void aScheduleBeyondTheLookaheadHasNoSlot() {
        assertThat(RatePacing.window(NOW + SECOND + 1, NOW, SECOND, 4).capacity())
                .isZero();
        assertThat(RatePacing.window(NOW + SECOND, NOW, SECOND, 4).capacity()).isEqualTo(1);
        assertThat(RatePacing.window(NOW + 1, NOW, 0, 4).capacity()).isZero();
    }

    @Test
    void refusesBadArguments() {
        assertThatThrownBy(() -> RatePacing.window(null, NOW, -1, 4)).hasMessageContaining("lookahead");
        assertThatThrownBy(() -> RatePacing.window(null, NOW, 0, 0)).hasMessageContaining("rateLimit");
        assertThatThrownBy(() -> RatePacing.window(null, NOW, 0, 10_001)).hasMessageContaining("rateLimit");
        RatePacing.Window w = RatePacing.window(null, NOW, 0, 4);
        assertThatThrownBy(() -> w.slot(1)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> w.nextFreeAfter(2)).hasMessageContaining("taken");
    }

    static LongStream seeds() {
        return new SplittableRandom(20261202).longs(200);
    }

    /**
     * Claims at random times (bursts, pauses, long idle gaps), each with a random look-ahead,
     * taking a random part of its window and moving the shared schedule: no half-open second ever
     * holds more than the rate, no slot is before its claim or beyond its look-ahead, and no two
     * slots are closer than the spacing.
     */
    @ParameterizedTest
    @MethodSource("seeds")
    void anySequenceOfClaimsKeepsEverySecondWithinTheRate(long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        int rate = RATES[random.nextInt(RATES.length)];
        long interval = RatePacing.intervalNanos(rate);
        Long nextFree = random.nextBoolean() ? null : NOW - random.nextLong(10 * SECOND);
        long now = NOW;
        List<Long> slots = new ArrayList<>();
        for (int claim = 0; claim < 300; claim++) {
            now += switch (random.nextInt(4)) {
                case 0 -> 0;
                case 1 -> random.nextLong(interval + 1);
                case 2 -> random.nextLong(SECOND / 10 + 1);
                default -> random.nextLong(3 * SECOND);
            };
            long lookahead = random.nextBoolean() ? 0 : random.nextLong(2 * SECOND + 1);
            RatePacing.Window w = RatePacing.window(nextFree, now, lookahead, rate);
            int taken = w.capacity() == 0 ? 0 : random.nextInt(Math.min(w.capacity(), 50) + 1);
            for (int i = 0; i < taken; i++) {
                long slot = w.slot(i);
                assertThat(slot).as("seed %d: slot before its claim", seed).isGreaterThanOrEqualTo(now);
                assertThat(slot).as("seed %d: slot beyond the look-ahead", seed).isLessThanOrEqualTo(now + lookahead);
                slots.add(slot);
            }
            if (taken > 0) {
                nextFree = w.nextFreeAfter(taken);
            }
        }
        for (int i = 1; i < slots.size(); i++) {
            assertThat(slots.get(i) - slots.get(i - 1))
                    .as("seed %d, rate %d: spacing", seed, rate)
                    .isGreaterThanOrEqualTo(interval);
        }
        int from = 0;
        for (int to = 0; to < slots.size(); to++) {
            while (slots.get(to) - slots.get(from) >= SECOND) {
                from++;
            }
            assertThat(to - from + 1)
                    .as("seed %d, rate %d: slots in the second before slot %d", seed, rate, to)
                    .isLessThanOrEqualTo(rate);
        }
    }
}
