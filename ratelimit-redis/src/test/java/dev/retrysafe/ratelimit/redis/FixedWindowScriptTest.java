package dev.retrysafe.ratelimit.redis;

import static dev.retrysafe.ratelimit.redis.Charges.charge;
import static dev.retrysafe.ratelimit.redis.Charges.fivePerTenSeconds;
import static org.assertj.core.api.Assertions.assertThat;

import dev.retrysafe.ratelimit.Algorithm;
import dev.retrysafe.ratelimit.Decision;
import dev.retrysafe.ratelimit.Policy;
import org.junit.jupiter.api.Test;

/** The fixed window in decide.lua, 5 per 10 s, windows aligned to the epoch. */
class FixedWindowScriptTest extends ScriptTestBase {

    private final Policy policy = fivePerTenSeconds(Algorithm.FIXED_WINDOW);
    private final long firstWindow = T0_MICROS / 10_000_000;

    @Test
    void countsPerWindowAndRefusesUntilTheNextOne() {
        at(1_000_000);
        for (int i = 4; i >= 0; i--) {
            assertFigures(only(decide(charge(policy))), i, 9_000_000, 0);
        }
        Decision refused = decide(charge(policy));
        assertThat(refused).isInstanceOf(Decision.Rejected.class);
        assertFigures(only(refused), 0, 9_000_000, 9_000_000);
        assertThat(((Decision.Rejected) refused).retryAfterSeconds()).isEqualTo(9);
        // the counter lives until its window ends
        assertThat(pttl(baseKey("fixed_window", "fw") + ":" + firstWindow)).isBetween(8_500L, 9_000L);

        at(9_900_000);
        assertFigures(only(decide(charge(policy))), 0, 100_000, 100_000);
        at(10_000_000);
        assertFigures(only(decide(charge(policy))), 4, 10_000_000, 0);
        assertThat(redis.keys()).contains(baseKey("fixed_window", "fw") + ":" + (firstWindow + 1));
    }

    @Test
    void aCostAboveTheQuotaIsRefusedForOneWindow() {
        at(4_000_000);
        assertFigures(only(decide(charge(policy, 6))), 5, 6_000_000, 10_000_000);
        assertThat(redis.keys()).isEmpty();
    }

    @Test
    void aRefusedCostMayFitWhereASmallerOneStillDoes() {
        decide(charge(policy, 3));
        assertFigures(only(decide(charge(policy, 3))), 2, 10_000_000, 10_000_000);
        assertFigures(only(decide(charge(policy, 2))), 0, 10_000_000, 0);
    }
}
