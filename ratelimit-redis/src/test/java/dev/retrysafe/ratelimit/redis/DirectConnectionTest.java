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
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Which way a decision goes to a private Redis: a lone one over the store's direct connection
 * (seen from Redis: the connection named {@code retrysafe-rl-direct} ran the script, no other did),
 * none when it is turned off, and the connection made again by itself after Redis restarts.
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
        assertThat(clients).filteredOn(c -> c.contains(" name=" + LANE + " ")).singleElement()
                .satisfies(c -> assertThat(c).contains(" cmd=evalsha "));
        assertThat(clients).filteredOn(c -> c.contains(" cmd=evalsha ") || c.contains(" cmd=eval "))
                .hasSize(1);
    }

    @Test
    void turnedOffEveryDecisionGoesThroughLettuce() {
        store = newStore(false);
        assertThat(decide()).isInstanceOf(Decision.Allowed.class);

        List<String> clients = clients();
        assertThat(clients).noneMatch(c -> c.contains(" name=" + LANE + " "));
        assertThat(clients).filteredOn(c -> c.contains(" cmd=evalsha ") || c.contains(" cmd=eval "))
                .hasSize(1);
    }

    @Test
    void theDirectConnectionIsMadeAgainAfterRedisRestarts() {
        store = newStore(true);
        assertThat(decide().states().getFirst().remaining()).isEqualTo(2);

        server.kill();
        assertThat(decide().states().getFirst().known()).isFalse();
        server.restart();

        // decisions are counted again (through Lettuce at first), then the lane is back and used
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(20)).until(() -> {
            breakerClock.advance(Duration.ofSeconds(10));
            return decide().states().getFirst().known()
                    && clients().stream().anyMatch(c -> c.contains(" name=" + LANE + " ") && c.contains(" cmd=evalsha "));
        });
    }

    private RedisRateLimitStore newStore(boolean direct) {
        return RedisRateLimitStore.builder()
                .redisUri(server.uri())
                .keyPrefix("rs-test:")
                .directConnection(direct)
                .commandTimeout(Duration.ofSeconds(2))
                .circuitBreaker(3, Duration.ofSeconds(10))
                .breakerClock(breakerClock)
                .build();
    }

    private Decision decide() {
        return store.decide("a:acct_1", List.of(new Charge(policy, "key-1", 1)));
    }

    /** {@code CLIENT LIST}, one line per connection, each padded with spaces for whole-field matching. */
    private List<String> clients() {
        try (TestRedis admin = TestRedis.connect(server.uri())) {
            return admin.redis().clientList().lines().map(line -> " " + line + " ").toList();
        }
    }
}
