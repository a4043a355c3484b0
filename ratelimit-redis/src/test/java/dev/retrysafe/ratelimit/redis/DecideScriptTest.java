package dev.retrysafe.ratelimit.redis;

import static dev.retrysafe.ratelimit.redis.Charges.charge;
import static dev.retrysafe.ratelimit.redis.Charges.policy;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.retrysafe.ratelimit.Algorithm;
import dev.retrysafe.ratelimit.Charge;
import dev.retrysafe.ratelimit.Decision;
import dev.retrysafe.ratelimit.FailMode;
import dev.retrysafe.ratelimit.Policy;
import dev.retrysafe.ratelimit.PolicyState;
import dev.retrysafe.ratelimit.redis.internal.DecideScript;
import dev.retrysafe.ratelimit.redis.internal.KeyLayout;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.SlotHash;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** What every decision of decide.lua shares: all or nothing, peeks, refunds, expiry, key layout. */
class DecideScriptTest extends ScriptTestBase {

    // windows of seconds at least: keys expire by Redis's clock while the test sets the time
    private final Policy perTenSeconds = policy("per-ten-seconds", Algorithm.GCRA, 10, Duration.ofSeconds(10));
    private final Policy perMinute = policy("per-minute", Algorithm.FIXED_WINDOW, 2, Duration.ofMinutes(1));
    private final Policy perHour = policy("per-hour", Algorithm.SLIDING_WINDOW, 1, Duration.ofHours(1));

    @Test
    void aRefusedChargeChargesNoneOfTheOthers() {
        assertThat(decide(charge(perTenSeconds), charge(perMinute))).isInstanceOf(Decision.Allowed.class);
        assertThat(decide(charge(perTenSeconds), charge(perMinute))).isInstanceOf(Decision.Allowed.class);

        Decision refused = decide(charge(perTenSeconds), charge(perMinute));

        assertThat(refused).isInstanceOf(Decision.Rejected.class);
        assertThat(((Decision.Rejected) refused).refusedBy().policy()).isEqualTo(perMinute);
        // the per-ten-seconds policy allowed it, and reports its state uncharged: 8 of 10 left
        assertThat(refused.states().getFirst().remaining()).isEqualTo(8);
        assertThat(peek(charge(perTenSeconds)).states().getFirst().remaining()).isEqualTo(8);
    }

    @Test
    void namesTheFirstRefusingPolicyAndWaitsForTheLongest() {
        decide(charge(perMinute, 2), charge(perHour));

        Decision refused = decide(charge(perHour), charge(perMinute));

        Decision.Rejected rejected = (Decision.Rejected) refused;
        assertThat(rejected.refusedBy().policy()).isEqualTo(perHour);
        assertThat(rejected.states()).extracting(PolicyState::policy).containsExactly(perHour, perMinute);
        // per-hour: the next window's start plus W - floor((1 - 1) * W / 1) = 2 hours; per-minute: 1 minute
        assertThat(rejected.retryAfterSeconds()).isEqualTo(7_200);
    }

    @Test
    void aPeekChargesNothingAndIsAlwaysAllowed() {
        decide(charge(perMinute, 2));

        Decision peeked = peek(charge(perTenSeconds), charge(perMinute));

        assertThat(peeked).isInstanceOf(Decision.Allowed.class);
        assertFigures(peeked.states().get(0), 10, 0, 0);
        assertFigures(peeked.states().get(1), 0, 60_000_000, 60_000_000);
        // the GCRA key was never written
        assertThat(redis.keys()).hasSize(1);
        assertThat(peek(charge(perTenSeconds)).states().getFirst().remaining()).isEqualTo(10);
    }

    @Test
    void everyWrittenKeyExpires() {
        for (Algorithm algorithm : Algorithm.values()) {
            decide(charge(policy(algorithm.configName(), algorithm, 3, Duration.ofMinutes(1))));
        }
        List<String> keys = redis.keys();
        assertThat(keys).hasSize(4);
        for (String key : keys) {
            // GCRA and token bucket: 20 s until whole again; fixed: 60 s; sliding: 120 s
            assertThat(pttl(key)).as(key).isBetween(19_000L, 120_000L);
        }
    }

    @Test
    void aRefundedKeyLivesAsLongAsItsStateMattersAndAKeyBackToAbsentIsDeleted() {
        for (Algorithm algorithm : Algorithm.values()) {
            Policy policy = policy(algorithm.configName(), algorithm, 3, Duration.ofMinutes(1));
            decide(charge(policy, 2));
            assertThat(refund(charge(policy, 1)).states().getFirst().remaining())
                    .isEqualTo(2);
        }
        List<String> keys = redis.keys();
        assertThat(keys).hasSize(4);
        for (String key : keys) {
            // GCRA and token bucket: one unit left to refill, 20 s (not the 40 s of two); fixed
            // window: to the window's end, 60 s; sliding window: while it weighs, 120 s
            long expected =
                    key.contains(":gcra:") || key.contains(":tb:") ? 20_000 : key.contains(":fw:") ? 60_000 : 120_000;
            assertThat(pttl(key)).as(key).isBetween(expected - 1_000, expected);
        }

        for (Algorithm algorithm : Algorithm.values()) {
            refund(charge(policy(algorithm.configName(), algorithm, 3, Duration.ofMinutes(1)), 5));
        }
        assertThat(redis.keys())
                .as("states back to absent are deleted, not written")
                .isEmpty();
    }

    @Test
    void aRefundInACallOfSeveralRequestsSeesTheWritesBeforeItAndTheOnesAfterSeeIt() {
        // at t = 1,000 s, 20 s before the window of 60 s ends: two charges, a refund, a charge,
        // and a refund of two charges, one of them on a key that was never charged
        String one = redis.prefix() + "{a}:one";
        String two = redis.prefix() + "{a}:two";
        String[] keys = {one, one, one, one, one, two};
        List<Object> reply = redis.redis()
                .eval(
                        DecideScript.source(),
                        ScriptOutputType.MULTI,
                        keys,
                        "1000000000",
                        "0",
                        "2",
                        "fixed_window",
                        "60000000",
                        "3",
                        "3",
                        "1",
                        "gcra",
                        "60000000",
                        "5",
                        "5",
                        "1",
                        "1",
                        "1",
                        "!1",
                        "1",
                        "!1,2");

        assertThat(reply).hasSize(1 + 3 * 6);
        assertThat(reply.subList(1, 4)).containsExactly(2L, 20_000_000L, 0L);
        assertThat(reply.subList(4, 7)).containsExactly(1L, 20_000_000L, 0L);
        // the refund reports as a peek after it: back to one charged
        assertThat(reply.subList(7, 10)).containsExactly(2L, 20_000_000L, 0L);
        assertThat(reply.subList(10, 13)).containsExactly(1L, 20_000_000L, 0L);
        assertThat(reply.subList(13, 19)).containsExactly(2L, 20_000_000L, 0L, 5L, 0L, 0L);
        assertThat(redis.redis().get(one + ":16")).isEqualTo("1");
        assertThat(redis.keys()).as("the key never charged was not created").containsExactly(one + ":16");
    }

    @Test
    void aRefundWhoseKeyHoldsAnotherTypeFailsAloneAndWritesNothing() {
        String good = redis.prefix() + "{a}:good";
        String wrong = redis.prefix() + "{a}:wrong";
        redis.redis().lpush(wrong + ":16", "a list where this window's count belongs");
        // a charge of good; a refund of good and wrong (fails); a peek at good
        String[] keys = {good, good, wrong, good};
        List<Object> reply = redis.redis()
                .eval(
                        DecideScript.source(),
                        ScriptOutputType.MULTI,
                        keys,
                        "1000000000",
                        "0",
                        "1",
                        "fixed_window",
                        "60000000",
                        "3",
                        "3",
                        "1",
                        "1",
                        "!1,1",
                        "?1");

        assertThat(reply).hasSize(1 + 3 + 6 + 3);
        assertThat(reply.get(4)).isEqualTo(-1L);
        assertThat((String) reply.get(5)).contains("WRONGTYPE");
        assertThat(reply.subList(6, 10)).containsOnly(0L);
        // good's charge was not given back
        assertThat(reply.subList(10, 13)).containsExactly(2L, 20_000_000L, 0L);
        assertThat(redis.redis().get(good + ":16")).isEqualTo("1");
    }

    @Test
    void aMinimumKeyTtlKeepsKeysLonger() {
        try (RedisRateLimitStore lasting = redis.store()
                .timeSource(clock)
                .minimumKeyTtl(Duration.ofHours(1))
                .build()) {
            lasting.decide(PARTITION, List.of(charge(perTenSeconds)));
        }
        assertThat(pttl(baseKey("per-ten-seconds", "gcra"))).isBetween(3_500_000L, 3_600_000L);
    }

    @Test
    void allKeysOfARequestShareOneClusterSlot() {
        String partition = "a:{evil}}{";
        List<Charge> charges = List.of(
                charge(perTenSeconds),
                charge(perMinute),
                charge(perHour),
                new Charge(policy("tb", Algorithm.TOKEN_BUCKET, 5, Duration.ofSeconds(10)), "other key {x}", 1));

        store.decide(partition, charges);

        List<String> keys = redis.keys();
        assertThat(keys).hasSize(4);
        Set<Integer> slots = keys.stream().map(SlotHash::getSlot).collect(Collectors.toSet());
        assertThat(slots).hasSize(1);
        // the tag is the escaped partition, not a piece of it
        assertThat(slots).containsExactly(SlotHash.getSlot("a:%7Bevil%7D%7D%7B"));
    }

    @Test
    void partitionsDoNotShareCounters() {
        store.decide("a:1", List.of(charge(perMinute, 2)));
        assertThat(store.decide("a:2", List.of(charge(perMinute)))).isInstanceOf(Decision.Allowed.class);
        assertThat(store.decide("a:1", List.of(charge(perMinute)))).isInstanceOf(Decision.Rejected.class);
    }

    @Test
    void usesRedisTimeWhenNoTimeIsGiven() {
        try (RedisRateLimitStore live = redis.store().build()) {
            long before = System.currentTimeMillis() * 1000;
            Decision first = live.decide(PARTITION, List.of(charge(perMinute)));
            Decision second = live.decide(PARTITION, List.of(charge(perMinute)));
            long after = System.currentTimeMillis() * 1000;

            // Redis 7 replicates effects, so a write after TIME is allowed
            assertThat(first.states().getFirst().remaining()).isEqualTo(1);
            assertThat(second.states().getFirst().remaining()).isZero();
            // same host: Redis's clock and ours agree within a second
            assertThat(first.states().getFirst().nowMicros()).isBetween(before - 1_000_000, after + 1_000_000);
            assertThat(live.decide(PARTITION, List.of(charge(perMinute)))).isInstanceOf(Decision.Rejected.class);
        }
    }

    @Test
    void twoChargesOfOnePolicyAreABrokenContract() {
        Policy sameName = policy("per-ten-seconds", Algorithm.GCRA, 99, Duration.ofSeconds(1));
        assertThatThrownBy(
                        () -> store.decide(PARTITION, List.of(charge(perTenSeconds), new Charge(sameName, "other", 1))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("at most one charge per policy: per-ten-seconds");
        assertThat(redis.keys()).isEmpty();
    }

    @Test
    void noChargesAllowWithoutAskingRedis() {
        assertThat(decide()).isEqualTo(new Decision.Allowed(List.of()));
        assertThat(peek()).isEqualTo(new Decision.Allowed(List.of()));
    }

    @Test
    void theDigestIsTheOneRedisComputes() {
        assertThat(redis.redis().scriptLoad(DecideScript.source())).isEqualTo(DecideScript.sha1());
    }

    @Test
    void anUnknownAlgorithmFailsItsRequestWithoutWritingAnything() {
        String[] keys = {redis.prefix() + "x"};
        List<Object> reply = redis.redis()
                .eval(
                        DecideScript.source(),
                        ScriptOutputType.MULTI,
                        keys,
                        "1000",
                        "0",
                        "1",
                        "leaky_bucket",
                        "1000000",
                        "5",
                        "5",
                        "1",
                        "1");
        assertThat(reply).hasSize(4);
        assertThat(reply.get(1)).isEqualTo(-1L);
        assertThat((String) reply.get(2)).contains("unknown rate-limit algorithm: leaky_bucket");
        assertThat(redis.keys()).isEmpty();
    }

    @Test
    void aRequestNamingAKindTheCallLacksFailsAloneAndTheOthersAreDecided() {
        String a = redis.prefix() + "{a}:one";
        String b = redis.prefix() + "{b}:one";
        String[] keys = {a, b, b, a, b, b, b, a};
        // kind 1 exists; the second request names kind 7, the third kinds 1 and "x", the fourth
        // has an empty piece (three charges, the second of no kind); the last is fine
        List<Object> reply = redis.redis()
                .eval(
                        DecideScript.source(),
                        ScriptOutputType.MULTI,
                        keys,
                        "1000000000",
                        "0",
                        "1",
                        "gcra",
                        "60000000",
                        "5",
                        "5",
                        "1",
                        "1",
                        "7",
                        "1,x",
                        "1,,1",
                        "1");

        assertThat(reply).hasSize(1 + 3 + 3 + 6 + 9 + 3);
        assertThat(reply.subList(1, 4)).containsExactly(4L, 12_000_000L, 0L);
        assertThat(reply.get(4)).isEqualTo(-1L);
        assertThat((String) reply.get(5)).contains("no such kind of charge");
        assertThat(reply.get(7)).isEqualTo(-1L);
        assertThat(reply.subList(9, 13)).containsOnly(0L);
        assertThat(reply.get(13)).isEqualTo(-1L);
        assertThat((String) reply.get(14)).contains("no such kind of charge");
        assertThat(reply.subList(15, 22)).containsOnly(0L);
        // the third and fourth wrote nothing, though charges of theirs allowed: the last sees a's one charge
        assertThat(reply.subList(22, 25)).containsExactly(3L, 24_000_000L, 0L);
        assertThat(redis.keys()).containsExactly(a);
    }

    @Test
    void aRequestWhoseKeyHoldsAnotherTypeGoesByItsFailModesAndTheOthersAreCounted() {
        Policy open = policy("open-one", Algorithm.GCRA, 5, Duration.ofSeconds(10), FailMode.OPEN);
        Policy closed = policy("closed-one", Algorithm.TOKEN_BUCKET, 5, Duration.ofSeconds(10), FailMode.CLOSED);
        for (Policy p : List.of(open, closed)) {
            // someone else's list where the store keeps this request's state
            redis.redis().lpush(new KeyLayout(redis.prefix()).baseKey(PARTITION, charge(p)), "not a counter");
        }
        // a store that shares calls (Redis's clock), as well as the time-source store of this class
        try (RedisRateLimitStore sharing =
                redis.store().commandTimeout(Duration.ofSeconds(5)).build()) {
            for (RedisRateLimitStore s : List.of(store, sharing)) {
                Decision failedOpen = s.decide(PARTITION, List.of(charge(open)));
                assertThat(failedOpen).isInstanceOf(Decision.Allowed.class);
                assertThat(only(failedOpen).known()).as("let through uncounted").isFalse();
                assertThat(s.decide(PARTITION, List.of(charge(closed)))).isInstanceOf(Decision.Unavailable.class);
                Decision counted = s.decide(PARTITION, List.of(charge(perTenSeconds)));
                assertThat(only(counted).known())
                        .as("another key of the same partition")
                        .isTrue();
            }
            assertThat(sharing.breakerOpen()).as("Redis answered: no outage").isFalse();
        }
    }

    @Test
    void aCallOfSeveralRequestsDecidesThemInOrderEachSeeingTheWritesBeforeIt() {
        // five requests in one call, at t = 1,000 s (windows of 60 s: 20 s left in this one): two
        // on one key with a quota of one (the second is refused, having seen the first's write),
        // one whose key holds another type (it alone fails), a peek at the first key, and a
        // request of two charges
        String one = redis.prefix() + "{a}:one";
        String wrong = redis.prefix() + "{b}:wrong";
        String two = redis.prefix() + "{c}:two";
        String three = redis.prefix() + "{c}:three";
        redis.redis().lpush(wrong, "a list, not a counter");
        String[] keys = {one, one, wrong, one, two, three};
        // kinds: 1 = 1 per minute, fixed window; 2 = the same, token bucket; 3 = GCRA, 5 per
        // minute; 4 = fixed window, 3 per minute
        List<Object> reply = redis.redis()
                .eval(
                        DecideScript.source(),
                        ScriptOutputType.MULTI,
                        keys,
                        "1000000000",
                        "3600000",
                        "4",
                        "fixed_window",
                        "60000000",
                        "1",
                        "1",
                        "1",
                        "token_bucket",
                        "60000000",
                        "1",
                        "1",
                        "1",
                        "gcra",
                        "60000000",
                        "5",
                        "5",
                        "1",
                        "fixed_window",
                        "60000000",
                        "3",
                        "3",
                        "1",
                        "1",
                        "1",
                        "2",
                        "?1",
                        "3,4");

        assertThat(reply).hasSize(1 + 3 + 3 + 3 + 3 + 6);
        assertThat(reply.get(0)).isEqualTo(1_000_000_000L);
        // the first: allowed, nothing left; the second: refused, nothing left, wait for the window
        assertThat(reply.subList(1, 4)).containsExactly(0L, 60_000_000L - 1_000_000_000L % 60_000_000L, 0L);
        assertThat(reply.subList(4, 7)).containsExactly(0L, 20_000_000L, 20_000_000L);
        // the third failed alone, with the server's error, and wrote nothing
        assertThat(reply.get(7)).isEqualTo(-1L);
        assertThat((String) reply.get(8)).contains("WRONGTYPE");
        assertThat(reply.get(9)).isEqualTo(0L);
        // the peek sees the first's charge (it must wait; the store allows every peek); the last
        // request was charged on both of its keys: GCRA (T = 12 s) leaves 4 of 5, the window 2 of 3
        assertThat(reply.subList(10, 13)).containsExactly(0L, 20_000_000L, 20_000_000L);
        assertThat(reply.subList(13, 16)).containsExactly(4L, 12_000_000L, 0L);
        assertThat(reply.subList(16, 19)).containsExactly(2L, 20_000_000L, 0L);
        assertThat(redis.redis().get(one)).isNull(); // a window key, not the base key
        assertThat(redis.keys()).contains(wrong, two).hasSize(4);
    }
}
