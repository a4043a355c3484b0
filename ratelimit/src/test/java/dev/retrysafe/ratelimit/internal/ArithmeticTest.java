package dev.retrysafe.ratelimit.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.retrysafe.ratelimit.Algorithm;
import dev.retrysafe.ratelimit.Policy;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The pure formulas of docs/rate-limits.md against hand-computed figures. */
class ArithmeticTest {

    private static final long S = 1_000_000L;

    @Test
    void gcraEmissionIntervalRoundsUpSoTheRateNeverExceedsTheQuota() {
        assertThat(Gcra.emissionInterval(10 * S, 5)).isEqualTo(2 * S);
        assertThat(Gcra.emissionInterval(10 * S, 3)).isEqualTo(3_333_334);
    }

    @Test
    void gcra() {
        long t = 2 * S;
        // absent key, 5 per 10 s: the fifth unit fits, the sixth waits one interval
        assertThat(Gcra.retryAfter(0, 100 * S, 5, t, 5, 10 * S)).isZero();
        long tat = Gcra.chargedTat(0, 100 * S, 5, t);
        assertThat(tat).isEqualTo(110 * S);
        assertThat(Gcra.retryAfter(tat, 100 * S, 1, t, 5, 10 * S)).isEqualTo(2 * S);
        assertThat(Gcra.retryAfter(tat, 101 * S, 2, t, 5, 10 * S)).isEqualTo(3 * S);
        assertThat(Gcra.remaining(tat, 103 * S, t, 5, 5)).isEqualTo(1); // 7 s of debt = 3.5 intervals
        assertThat(Gcra.reset(tat, 103 * S)).isEqualTo(7 * S);
        assertThat(Gcra.retryAfter(tat, 100 * S, 6, t, 5, 10 * S))
                .as("above the burst")
                .isEqualTo(10 * S);
    }

    @Test
    void tokenBucket() {
        long w = 10 * S;
        long capacity = 5 * w;
        long fill = Math.ceilDiv(capacity, 5);
        // empty at 100 s; 3 s later 15 units of refill per µs... 1.5 tokens
        long level = TokenBucket.levelAt(0, 100 * S, 103 * S, 5, capacity, fill);
        assertThat(level).isEqualTo(15 * S);
        assertThat(TokenBucket.remaining(level, w, 5)).isEqualTo(1);
        assertThat(TokenBucket.retryAfter(level, 2, w, 5, 5)).isEqualTo(S); // 0.5 token = 1 s
        assertThat(TokenBucket.reset(level, 5, capacity)).isEqualTo(7 * S);
        assertThat(TokenBucket.levelAt(0, 100 * S, Long.MAX_VALUE, 5, capacity, fill))
                .as("a long absence is capped, not overflowed")
                .isEqualTo(capacity);
        assertThat(TokenBucket.levelAt(capacity, 100 * S, 50 * S, 5, capacity, fill))
                .as("time going backwards refills nothing")
                .isEqualTo(capacity);
    }

    @Test
    void aTokenBucketChargedAtAnEarlierTimeKeepsItsLastTime() {
        TokenBucket bucket = (TokenBucket) Kernel.of(dev.retrysafe.ratelimit.Policy.builder("p")
                .algorithm(dev.retrysafe.ratelimit.Algorithm.TOKEN_BUCKET)
                .limit(5, java.time.Duration.ofSeconds(10))
                .build());
        long[] state = new long[2];
        bucket.writeAbsent(state, 0);
        bucket.charge(state, 0, 100 * S, 5);

        bucket.charge(state, 0, 90 * S, 0); // a skewed caller, a second decision at an earlier time
        assertThat(bucket.remaining(state, 0, 100 * S))
                .as("no refill counted twice")
                .isZero();
    }

    @Test
    void fixedWindow() {
        assertThat(FixedWindow.countIn(7, 4, 7)).isEqualTo(4);
        assertThat(FixedWindow.countIn(6, 4, 7)).isZero();
        assertThat(FixedWindow.retryAfter(4, 74 * S, 1, 10 * S, 5)).isZero();
        assertThat(FixedWindow.retryAfter(5, 74 * S, 1, 10 * S, 5)).isEqualTo(6 * S);
        assertThat(FixedWindow.untilWindowEnds(70 * S, 10 * S)).isEqualTo(10 * S);
    }

    @Test
    void slidingWindow() {
        long w = 10 * S;
        assertThat(SlidingWindow.current(7, 3, 7)).isEqualTo(3);
        assertThat(SlidingWindow.previous(7, 3, 2, 7)).isEqualTo(2);
        assertThat(SlidingWindow.previous(6, 3, 2, 7)).isEqualTo(3);
        assertThat(SlidingWindow.previous(5, 3, 2, 7)).isZero();

        // prev 5, cur 0 at e = 0.1 s: 4.95 + 1 > 5; fits once 5*(W-e)/W <= 4: e = 2 s
        assertThat(SlidingWindow.retryAfter(5, 0, S / 10, 1, w, 5)).isEqualTo(2 * S - S / 10);
        // prev 0, cur 5 at e = 4 s: next window at e' = 2 s (5 * 0.8 + 1 = 5)
        assertThat(SlidingWindow.retryAfter(0, 5, 4 * S, 1, w, 5)).isEqualTo(8 * S);
        // cost = quota, cur > 0: only the window after next is empty enough
        assertThat(SlidingWindow.retryAfter(0, 1, 4 * S, 5, w, 5)).isEqualTo(16 * S);
        // prev 5, cur 0, late in the window: the next window starts empty
        assertThat(SlidingWindow.retryAfter(5, 0, 9 * S, 5, w, 5)).isEqualTo(S);
        assertThat(SlidingWindow.remaining(5, 0, 9 * S, w, 5)).isEqualTo(4); // 5 - 0.5 = 4.5
        assertThat(SlidingWindow.reset(5, 0, 7, 75 * S, w)).isEqualTo(5 * S);
        assertThat(SlidingWindow.reset(5, 1, 7, 75 * S, w)).isEqualTo(15 * S);
        assertThat(SlidingWindow.reset(0, 0, 7, 75 * S, w)).isZero();
    }

    @Test
    void gcraRefundGoesBackByTheCostButNeverBeforeNow() {
        long t = 2 * S;
        // tat 110 s at 103 s: 7 s of debt, 3.5 intervals
        assertThat(Gcra.refundedTat(110 * S, 103 * S, 2, t)).isEqualTo(106 * S);
        assertThat(Gcra.refundedTat(110 * S, 103 * S, 4, t))
                .as("not before now")
                .isEqualTo(103 * S);
        assertThat(Gcra.refundedTat(110 * S, 103 * S, Long.MAX_VALUE, t))
                .as("no overflow")
                .isEqualTo(103 * S);
        assertThat(Gcra.refundedTat(100 * S, 103 * S, 1, t))
                .as("nothing held: unchanged")
                .isEqualTo(100 * S);
    }

    @Test
    void tokenBucketRefundFillsUpToCapacity() {
        long w = 10 * S;
        long capacity = 5 * w;
        // 1.5 tokens, 2 given back: 3.5
        assertThat(TokenBucket.refundedLevel(15 * S, 2, w, 5, capacity)).isEqualTo(35 * S);
        assertThat(TokenBucket.refundedLevel(15 * S, 4, w, 5, capacity))
                .as("at most full")
                .isEqualTo(capacity);
        assertThat(TokenBucket.refundedLevel(15 * S, Long.MAX_VALUE, w, 5, capacity))
                .as("no overflow")
                .isEqualTo(capacity);
    }

    @Test
    void fixedWindowRefundNeverGoesBelowZero() {
        assertThat(FixedWindow.refundedCount(4, 3)).isEqualTo(1);
        assertThat(FixedWindow.refundedCount(4, 9)).isZero();
        assertThat(FixedWindow.refundedCount(4, Long.MAX_VALUE)).isZero();
    }

    @Test
    void slidingWindowRefundTakesWhatTheCurrentCountCannotCoverOffThePrevious() {
        // the current count covers it
        assertThat(SlidingWindow.refundedCurrent(3, 2)).isEqualTo(1);
        assertThat(SlidingWindow.refundedPrevious(5, 3, 2)).isEqualTo(5);
        // cur 1 of cost 3: 2 off the previous
        assertThat(SlidingWindow.refundedCurrent(1, 3)).isZero();
        assertThat(SlidingWindow.refundedPrevious(5, 1, 3)).isEqualTo(3);
        assertThat(SlidingWindow.refundedPrevious(1, 1, 5)).as("never below 0").isZero();
        assertThat(SlidingWindow.refundedPrevious(5, 1, Long.MAX_VALUE)).isZero();
    }

    @Test
    void aRefundLeavesTheStateOfALaterWindowAlone() {
        // a clock that went back across a boundary: the stored window is not this one
        for (Algorithm algorithm : List.of(Algorithm.FIXED_WINDOW, Algorithm.SLIDING_WINDOW)) {
            Kernel kernel = Kernel.of(Policy.builder("p")
                    .algorithm(algorithm)
                    .limit(5, Duration.ofSeconds(10))
                    .build());
            long[] state = new long[kernel.stride()];
            kernel.writeAbsent(state, 0);
            kernel.charge(state, 0, 25 * S, 3);
            long[] before = state.clone();

            kernel.refund(state, 0, 15 * S, 3);

            assertThat(state).as(algorithm.configName()).containsExactly(before);
            assertThat(kernel.remaining(state, 0, 25 * S)).isEqualTo(2);
        }
    }

    @Test
    void aRefundInTheNextWindowComesOffTheSlidingWindowsPreviousCount() {
        Kernel kernel = Kernel.of(Policy.builder("p")
                .algorithm(Algorithm.SLIDING_WINDOW)
                .limit(5, Duration.ofSeconds(10))
                .build());
        long[] state = new long[kernel.stride()];
        kernel.writeAbsent(state, 0);
        kernel.charge(state, 0, 14 * S, 4);

        kernel.refund(state, 0, 22 * S, 3);

        // prev 1 at e = 2 s weighs 0.8: floor(4.2) = 4 left, whole when the window ends
        assertThat(kernel.remaining(state, 0, 22 * S)).isEqualTo(4);
        assertThat(kernel.reset(state, 0, 22 * S)).isEqualTo(8 * S);
    }
}
