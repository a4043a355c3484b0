package dev.retrysafe.ratelimit.redis;

import static dev.retrysafe.ratelimit.redis.Charges.charge;
import static dev.retrysafe.ratelimit.redis.Charges.fivePerTenSeconds;
import static dev.retrysafe.ratelimit.redis.Charges.policy;
import static org.assertj.core.api.Assertions.assertThat;

import dev.retrysafe.ratelimit.Algorithm;
import dev.retrysafe.ratelimit.Decision;
import dev.retrysafe.ratelimit.Policy;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** GCRA in decide.lua, 5 per 10 s: emission interval T = 2 s, B*T = 10 s. */
class GcraScriptTest extends ScriptTestBase {

    private final Policy policy = fivePerTenSeconds(Algorithm.GCRA);

    @Test
    void spendsTheBurstThenRefusesUntilOneIntervalHasPassed() {
        // first: tat = now + T; remaining floor((10 - 2) / 2) = 4
        assertFigures(only(decide(charge(policy))), 4, 2_000_000, 0);
        for (int i = 3; i >= 0; i--) {
            assertFigures(only(decide(charge(policy))), i, 10_000_000 - i * 2_000_000L, 0);
        }
        // sixth: newTat - now = 12 s > 10 s, retry after 2 s; nothing charged
        Decision refused = decide(charge(policy));
        assertThat(refused).isInstanceOf(Decision.Rejected.class);
        assertFigures(only(refused), 0, 10_000_000, 2_000_000);
        assertThat(((Decision.Rejected) refused).retryAfterSeconds()).isEqualTo(2);

        // at 2.5 s: tat0 - now = 7.5 s, newTat - now = 9.5 s fits
        at(2_500_000);
        assertFigures(only(decide(charge(policy))), 0, 9_500_000, 0);
        // the key expires at tat: 9.5 s from now
        assertThat(pttl(baseKey("gcra", "gcra"))).isBetween(9_000L, 9_500L);
    }

    @Test
    void storesTheTheoreticalArrivalTimeWithEveryDigit() {
        // a timestamp in microseconds has 16 digits, more than Lua's own number formatting keeps
        at(1);
        decide(charge(policy));
        assertThat(redis.redis().get(baseKey("gcra", "gcra"))).isEqualTo(Long.toString(T0_MICROS + 1 + 2_000_000));
    }

    @Test
    void aCostAboveTheBurstIsRefusedForOneWindow() {
        Decision refused = decide(charge(policy, 6));
        assertFigures(only(refused), 5, 0, 10_000_000);
        assertThat(redis.keys()).isEmpty();
    }

    @Test
    void roundsTheEmissionIntervalUpSoTheRateNeverExceedsTheQuota() {
        // 3 per 10 s: T = ceil(10^7 / 3) = 3333334 us, B*T = 10000002
        Policy odd = policy("odd", Algorithm.GCRA, 3, Duration.ofSeconds(10));
        assertFigures(only(decide(charge(odd))), 2, 3_333_334, 0);
        assertFigures(only(decide(charge(odd, 2))), 0, 10_000_002, 0);
        // retry after newTat - now - B*T = 13333336 - 10000002
        assertFigures(only(decide(charge(odd))), 0, 10_000_002, 3_333_334);
        at(3_333_333);
        // tat0 - now = 6666669, newTat - now = 10000003 > 10000002: one microsecond short
        assertFigures(only(decide(charge(odd))), 0, 6_666_669, 1);
        at(3_333_334);
        assertFigures(only(decide(charge(odd))), 0, 10_000_002, 0);
    }

    @Test
    void aBurstAboveTheQuotaReportsAtMostTheQuotaRemaining() {
        Policy bursty = Policy.builder("bursty")
                .limit(5, Duration.ofSeconds(10))
                .burst(8)
                .build();
        // B*T = 16 s; after one: floor((16 - 2) / 2) = 7, clamped to the quota
        assertFigures(only(decide(charge(bursty))), 5, 2_000_000, 0);
        assertThat(allowedOf(10, charge(bursty))).isEqualTo(7);
        assertFigures(only(peek(charge(bursty))), 0, 16_000_000, 2_000_000);
    }
}
