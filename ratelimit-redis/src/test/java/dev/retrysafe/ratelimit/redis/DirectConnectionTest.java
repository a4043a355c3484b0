package dev.retrysafe.ratelimit.redis;

import static dev.retrysafe.ratelimit.redis.Charges.policy;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.retrysafe.ratelimit.Algorithm;
import dev.retrysafe.ratelimit.Charge;
import dev.retrysafe.ratelimit.Decision;
import dev.retrysafe.ratelimit.FailMode;
import dev.retrysafe.ratelimit.Policy;
import dev.retrysafe.testkit.FakeClock;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * Which way a decision goes to a private Redis: a lone one over the store's direct connection
 * (seen from Redis: the connection named {@code retrysafe-rl-direct} ran the script, no other did),
 * one made while another is under way through Lettuce, none when it is turned off, and the
 * connection made again by itself after Redis restarts.
 */
class DirectConnectionTest extends PrivateRedisTest {

    private static final String LANE = "retrysafe-rl-direct";
    private final Policy policy = policy("p", Algorithm.GCRA, 3, Duration.ofHours(1), FailMode.OPEN);
    private final FakeClock breakerClock = new FakeClock();

    @Test
    void aLoneDecisionGoesOverTheDirectConnection() {
        store = newStore(true);
        assertThat(decide()).isInstanceOf(Decision.Allowed.class); // EVAL: a new Redis lacks the script
        assertThat(decide()).isInstanceOf(Decision.Allowed.class);

        List<String> clients = clients();
        assertThat(clients)
                .filteredOn(c -> c.contains(" name=" + LANE + " "))
                .singleElement()
                .satisfies(c -> assertThat(c).contains(" cmd=evalsha "));
        assertThat(clients)
                .filteredOn(c -> c.contains(" cmd=evalsha ") || c.contains(" cmd=eval "))
                .hasSize(1);
    }

    @Test
    void turnedOffEveryDecisionGoesThroughLettuce() {
        store = newStore(false);
        assertThat(decide()).isInstanceOf(Decision.Allowed.class);

        List<String> clients = clients();
        assertThat(clients).noneMatch(c -> c.contains(" name=" + LANE + " "));
        assertThat(clients)
                .filteredOn(c -> c.contains(" cmd=evalsha ") || c.contains(" cmd=eval "))
                .hasSize(1);
    }

    /**
     * The lane is for a decision alone: one made while another is under way goes through Lettuce
     * though the lane is free. The first decision is held under way by its time source (read
     * before its call is made); the second goes through Lettuce; the first, alone again once the
     * second is answered, then takes the lane.
     */
    @Test
    void aDecisionWhileAnotherIsUnderWayLeavesTheLaneAlone() throws Exception {
        CountDownLatch firstReading = new CountDownLatch(1);
        CountDownLatch releaseFirst = new CountDownLatch(1);
        AtomicBoolean holdNextRead = new AtomicBoolean(true);
        Clock heldOnce = new Clock() {
            @Override
            public Instant instant() {
                if (holdNextRead.compareAndSet(true, false)) {
                    firstReading.countDown();
                    try {
                        if (!releaseFirst.await(20, TimeUnit.SECONDS)) {
                            throw new IllegalStateException("the first decision was never released");
                        }
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new IllegalStateException(e);
                    }
                }
                return Instant.now();
            }

            @Override
            public ZoneId getZone() {
                return ZoneOffset.UTC;
            }

            @Override
            public Clock withZone(ZoneId zone) {
                throw new UnsupportedOperationException();
            }
        };
        store = builder(true).timeSource(heldOnce).build();
        ExecutorService first = Executors.newSingleThreadExecutor();
        try {
            Future<Decision> held = first.submit(this::decide);
            assertThat(firstReading.await(20, TimeUnit.SECONDS))
                    .as("the first decision is under way")
                    .isTrue();

            assertThat(decide()).isInstanceOf(Decision.Allowed.class);
            List<String> clients = clients();
            assertThat(clients)
                    .filteredOn(c -> c.contains(" name=" + LANE + " "))
                    .singleElement()
                    .satisfies(
                            c -> assertThat(c).doesNotContain(" cmd=evalsha ").doesNotContain(" cmd=eval "));
            assertThat(clients)
                    .filteredOn(c -> c.contains(" cmd=evalsha ") || c.contains(" cmd=eval "))
                    .as("the second decision went through Lettuce")
                    .hasSize(1);

            releaseFirst.countDown();
            assertThat(held.get(20, TimeUnit.SECONDS)).isInstanceOf(Decision.Allowed.class);
            assertThat(clients())
                    .filteredOn(c -> c.contains(" name=" + LANE + " "))
                    .singleElement()
                    .as("the first, alone again, took the lane")
                    .satisfies(c -> assertThat(c).containsAnyOf(" cmd=evalsha ", " cmd=eval "));
        } finally {
            releaseFirst.countDown();
            first.shutdownNow();
        }
    }

    @Test
    void theDirectConnectionIsMadeAgainAfterRedisRestarts() {
        store = newStore(true);
        assertThat(decide().states().getFirst().remaining()).isEqualTo(2);

        server.kill();
        assertThat(decide().states().getFirst().known()).isFalse();
        server.restart();

        // decisions are counted again (through Lettuce at first), then the lane is back and used
        await().atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(20))
                .until(() -> {
                    breakerClock.advance(Duration.ofSeconds(10));
                    return decide().states().getFirst().known()
                            && clients().stream()
                                    .anyMatch(c -> c.contains(" name=" + LANE + " ") && c.contains(" cmd=evalsha "));
                });
    }

    private RedisRateLimitStore newStore(boolean direct) {
        return builder(direct).build();
    }

    private RedisRateLimitStore.Builder builder(boolean direct) {
        return RedisRateLimitStore.builder()
                .redisUri(server.uri())
                .keyPrefix("rs-test:")
                .directConnection(direct)
                .commandTimeout(Duration.ofSeconds(2))
                .circuitBreaker(3, Duration.ofSeconds(10))
                .breakerClock(breakerClock);
    }

    private Decision decide() {
        return store.decide("a:acct_1", List.of(new Charge(policy, "key-1", 1)));
    }

    /** {@code CLIENT LIST}, one line per connection, each padded with spaces for whole-field matching. */
    private List<String> clients() {
        try (TestRedis admin = TestRedis.connect(server.uri())) {
            return admin.redis()
                    .clientList()
                    .lines()
                    .map(line -> " " + line + " ")
                    .toList();
        }
    }
}
