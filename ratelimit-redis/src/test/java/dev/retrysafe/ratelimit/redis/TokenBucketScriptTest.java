package dev.retrysafe.ratelimit.redis;

import static dev.retrysafe.ratelimit.redis.Charges.charge;
import static dev.retrysafe.ratelimit.redis.Charges.fivePerTenSeconds;
import static org.assertj.core.api.Assertions.assertThat;

import dev.retrysafe.ratelimit.Algorithm;
import dev.retrysafe.ratelimit.Decision;
import dev.retrysafe.ratelimit.Policy;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The token bucket in decide.lua, 5 per 10 s: one token is W = 10^7 units, capacity 5*10^7,
 * refill 5 units per microsecond (a token every 2 s).
 */
class TokenBucketScriptTest extends ScriptTestBase {

    private final Policy policy = fivePerTenSeconds(Algorithm.TOKEN_BUCKET);

    @Test
    void startsFullSpendsItThenRefills() {
        // a fresh key reads as a full bucket
        assertFigures(only(peek(charge(policy))), 5, 0, 0);
        // level 4*10^7 after one; reset ceil(10^7 / 5) = 2 s
        assertFigures(only(decide(charge(policy))), 4, 2_000_000, 0);
        for (int i = 3; i >= 0; i--) {
            assertFigures(only(decide(charge(policy))), i, 10_000_000 - i * 2_000_000L, 0);
        }
        // empty: retry after ceil(10^7 / 5) = 2 s
        Decision refused = decide(charge(policy));
        assertThat(refused).isInstanceOf(Decision.Rejected.class);
        assertFigures(only(refused), 0, 10_000_000, 2_000_000);

        // 2.5 s later: level 1.25*10^7, one token fits, 2.5*10^6 left
        at(2_500_000);
        assertFigures(only(decide(charge(policy))), 0, 9_500_000, 0);
        // the key expires when the bucket is full again
        assertThat(pttl(baseKey("token_bucket", "tb"))).isBetween(9_000L, 9_500L);
        // 1 us later: 2.5*10^6 + 5 units, 7.5*10^6 - 5 missing: ceil(/5) = 1499999 us
        at(2_500_001);
        assertFigures(only(decide(charge(policy))), 0, 9_499_999, 1_499_999);
    }

    @Test
    void aDecisionAtAnEarlierTimeDoesNotCountTheRefillTwice() {
        at(10_000_000);
        assertFigures(only(decide(charge(policy))), 4, 2_000_000, 0);
        // a clock 5 s behind: no refill since, and the level keeps its time of 10 s
        at(5_000_000);
        assertFigures(only(decide(charge(policy))), 3, 4_000_000, 0);
        // back at 10 s nothing has refilled: 3 tokens, as the in-memory store has it
        at(10_000_000);
        assertFigures(only(peek(charge(policy))), 3, 4_000_000, 0);
    }

    @Test
    void refillStopsAtTheCapacity() {
        decide(charge(policy, 5));
        // an hour later the bucket holds 5 tokens, not 1800
        at(3_600_000_000L);
        assertFigures(only(decide(charge(policy, 5))), 0, 10_000_000, 0);
        assertThat(decide(charge(policy))).isInstanceOf(Decision.Rejected.class);
    }

    @Test
    void aCostAboveTheBurstIsRefusedForOneWindow() {
        assertFigures(only(decide(charge(policy, 6))), 5, 0, 10_000_000);
        assertThat(redis.keys()).isEmpty();
    }

    @Test
    void refillsAtTheQuotaRateWhateverTheBurst() {
        // 2 per 10 s with room for 6: one token every 5 s
        Policy bursty = Policy.builder("bursty")
                .algorithm(Algorithm.TOKEN_BUCKET)
                .limit(2, Duration.ofSeconds(10))
                .burst(6)
                .build();
        assertThat(allowedOf(10, charge(bursty))).isEqualTo(6);
        // capacity 6*10^7, refill 2 units/us: a token (10^7) in 5 s
        assertFigures(only(peek(charge(bursty))), 0, 30_000_000, 5_000_000);
        at(5_000_000);
        assertFigures(only(decide(charge(bursty))), 0, 30_000_000, 0);
    }
}
