package dev.retrysafe.ratelimit.redis;

import static dev.retrysafe.ratelimit.redis.Charges.charge;
import static dev.retrysafe.ratelimit.redis.Charges.fivePerTenSeconds;
import static org.assertj.core.api.Assertions.assertThat;

import dev.retrysafe.ratelimit.Algorithm;
import dev.retrysafe.ratelimit.Decision;
import dev.retrysafe.ratelimit.Policy;
import org.junit.jupiter.api.Test;

/** The sliding-window counter in decide.lua, 5 per 10 s (W = 10^7 us). */
class SlidingWindowScriptTest extends ScriptTestBase {

    private final Policy policy = fivePerTenSeconds(Algorithm.SLIDING_WINDOW);
    private final long firstWindow = T0_MICROS / 10_000_000;

    @Test
    void weighsThePreviousWindowByItsOverlap() {
        // an unused key is whole now
        assertFigures(only(peek(charge(policy))), 5, 0, 0);
        // window k, e = 0: the count matters until the end of window k+1
        for (int i = 4; i >= 0; i--) {
            assertFigures(only(decide(charge(policy))), i, 20_000_000, 0);
        }
        // refused with cur = 5, prev = 0: next window at e2 = W - floor(4W/5) = 2 s
        Decision refused = decide(charge(policy));
        assertThat(refused).isInstanceOf(Decision.Rejected.class);
        assertFigures(only(refused), 0, 20_000_000, 12_000_000);
        assertThat(pttl(baseKey("sliding_window", "sw") + ":" + firstWindow)).isBetween(19_500L, 20_000L);

        // window k+1 at e = 1 s: prev weighs 5 * 0.9 = 4.5: remaining floor(0.5) = 0;
        // excess 4.5*10^7 + 10^7 - 5*10^7 = 5*10^6, d1 = ceil(/5) = 10^6 < W - e
        at(11_000_000);
        assertFigures(only(decide(charge(policy))), 0, 9_000_000, 1_000_000);
        // at e = 2 s the previous window weighs 4: one fits
        at(12_000_000);
        assertFigures(only(decide(charge(policy))), 0, 18_000_000, 0);
        // and the next one 2 s later, when prev weighs 3 and cur is 1
        assertFigures(only(decide(charge(policy))), 0, 18_000_000, 2_000_000);
        at(14_000_000);
        assertFigures(only(decide(charge(policy))), 0, 16_000_000, 0);
    }

    @Test
    void whenThisWindowAloneIsFullTheNextWindowDecides() {
        // window k at e = 5 s: 3 then 2
        at(5_000_000);
        decide(charge(policy, 3));
        decide(charge(policy, 2));
        // cost 4 with cur = 5: the next window, where prev' = 5, fits 4 at e2 = W - floor(1*W/5) = 8 s
        assertFigures(only(decide(charge(policy, 4))), 0, 15_000_000, 5_000_000 + 8_000_000);
    }

    @Test
    void anEmptyCurrentWindowRetriesAtTheNextWindowStart() {
        // prev = 5 at e = 0.1 s; cost 5 does not fit before prev has slid out, at the next start
        at(0);
        decide(charge(policy, 5));
        at(10_100_000);
        // d1 = ceil((5*9.9 + 5*10 - 50) * 10^6 / 5) = 9.9 s, not < W - e = 9.9 s
        assertFigures(only(decide(charge(policy, 5))), 0, 9_900_000, 9_900_000);
    }

    @Test
    void aCostAboveTheQuotaIsRefusedForOneWindow() {
        assertFigures(only(decide(charge(policy, 6))), 5, 0, 10_000_000);
        assertThat(redis.keys()).isEmpty();
    }
}
