package dev.retrysafe.ratelimit.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.retrysafe.ratelimit.Algorithm;
import dev.retrysafe.ratelimit.Charge;
import dev.retrysafe.ratelimit.Decision;
import dev.retrysafe.ratelimit.InMemoryRateLimitStore;
import dev.retrysafe.ratelimit.Policy;
import dev.retrysafe.ratelimit.RateLimitStore;
import dev.retrysafe.testkit.FakeClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.LongStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The Lua arithmetic against the Java arithmetic of the in-memory store, decision by decision:
 * random policies of every algorithm (up to the largest quota and window {@link Policy} allows,
 * where doubles would first lose exactness), random costs (beyond the burst too), random times
 * (the same instant, a microsecond apart, on and next to window boundaries, many windows later),
 * and peeks and refunds among the charges.
 * Run one seed again with {@code -Dretrysafe.test.seed=<seed>}.
 */
class InMemoryAgreementTest {

    private static final long BASE_SEED = Long.getLong("retrysafe.test.seed", 0xA9EEL);
    private static final Instant START = Instant.parse("2026-01-01T00:00:00Z");
    private static final int REQUESTS = 300;

    static LongStream seeds() {
        return LongStream.range(0, 30).map(i -> BASE_SEED + i);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void redisDecidesLikeTheInMemoryStore(long seed) {
        Random r = new Random(seed);
        FakeClock redisClock = new FakeClock(START);
        FakeClock memoryClock = new FakeClock(START);
        List<Policy> policies = new ArrayList<>();
        int count = 1 + r.nextInt(4);
        for (int i = 0; i < count; i++) {
            policies.add(randomPolicy(r, "p" + i));
        }
        try (TestRedis redis = TestRedis.connect();
                RedisRateLimitStore actual = redis.storeAtTimeOf(redisClock).build();
                InMemoryRateLimitStore expected =
                        InMemoryRateLimitStore.builder().clock(memoryClock).build()) {
            for (int step = 0; step < REQUESTS; step++) {
                long advance = randomStep(r, policies, micros(memoryClock.instant()));
                redisClock.advance(Duration.ofNanos(advance * 1000));
                memoryClock.advance(Duration.ofNanos(advance * 1000));

                // one key per request; the in-memory store ignores the partition, so it follows the key
                int client = r.nextInt(3);
                String partition = "a:" + client;
                List<Charge> charges = new ArrayList<>();
                for (Policy policy : policies) {
                    if (r.nextInt(4) > 0) {
                        charges.add(new Charge(policy, "key" + client, randomCost(r, policy)));
                    }
                }
                Mode mode = Mode.random(r);
                Decision want = mode.apply(expected, partition, charges);
                Decision got = mode.apply(actual, partition, charges);

                assertThat(got)
                        .as("seed %d, request %d (%s at %s): %s", seed, step, mode, memoryClock.instant(), charges)
                        .isEqualTo(want);
            }
        }
    }

    /** What a request does. */
    private enum Mode {
        DECIDE,
        PEEK,
        REFUND;

        /** Decisions three times in five, as charges outnumber the others in service. */
        static Mode random(Random r) {
            int roll = r.nextInt(5);
            return roll == 0 ? PEEK : roll == 1 ? REFUND : DECIDE;
        }

        Decision apply(RateLimitStore store, String partition, List<Charge> charges) {
            return switch (this) {
                case DECIDE -> store.decide(partition, charges);
                case PEEK -> store.peek(partition, charges);
                case REFUND -> store.refund(partition, charges);
            };
        }
    }

    private static Policy randomPolicy(Random r, String name) {
        Algorithm algorithm = Algorithm.values()[r.nextInt(Algorithm.values().length)];
        long windowMicros = switch (r.nextInt(4)) {
            case 0 -> 1_000 + r.nextInt(20_000); // milliseconds
            case 1 -> 1_000_000L * (1 + r.nextInt(60)); // whole seconds
            case 2 -> 1_000 + r.nextLong(3_600_000_000L); // anything up to an hour
            default -> 1_000_000L * (86_400L * (1 + r.nextInt(13))); // days
        };
        long most = Policy.MAX_UNIT_MICROS / windowMicros;
        long quota = switch (r.nextInt(3)) {
            case 0 -> 1 + r.nextInt(10);
            case 1 -> 1 + r.nextInt(1000);
            default -> Math.max(1, most - r.nextInt(3)); // at the edge of exactness
        };
        quota = Math.min(quota, most);
        long burst = switch (r.nextInt(3)) {
            case 0 -> quota;
            case 1 -> 1 + r.nextLong(quota);
            default -> Math.min(most, 1 + r.nextLong(3 * quota));
        };
        return Policy.builder(name)
                .algorithm(algorithm)
                .limit(quota, Duration.ofNanos(windowMicros * 1000))
                .burst(burst)
                .build();
    }

    private static long randomCost(Random r, Policy policy) {
        long largest = Math.max(policy.quota(), policy.burst());
        return switch (r.nextInt(10)) {
            case 0 -> largest + 1 + r.nextInt(3); // never fits
            case 1 -> 1 + r.nextLong(largest); // anything that may fit
            case 2 -> Long.MAX_VALUE / 2; // absurd
            default -> 1 + r.nextInt((int) Math.min(largest, 3));
        };
    }

    /** Microseconds to move on: often little, sometimes to a window edge, sometimes far. */
    private static long randomStep(Random r, List<Policy> policies, long nowMicros) {
        Policy policy = policies.get(r.nextInt(policies.size()));
        long w = policy.windowMicros();
        return switch (r.nextInt(8)) {
            case 0 -> 0;
            case 1 -> 1;
            case 2 -> {
                // onto the next window boundary, or a microsecond either side of it
                long toBoundary = w - Math.floorMod(nowMicros, w);
                yield Math.max(0, toBoundary - 1 + r.nextInt(3));
            }
            case 3 -> r.nextLong(w * (1 + r.nextInt(3)) + 1);
            case 4 -> w / Math.max(1, policy.quota()) * (1 + r.nextInt(2));
            default -> r.nextLong(Math.max(1, w / 4));
        };
    }

    private static long micros(Instant instant) {
        return instant.getEpochSecond() * 1_000_000L + instant.getNano() / 1000;
    }
}
