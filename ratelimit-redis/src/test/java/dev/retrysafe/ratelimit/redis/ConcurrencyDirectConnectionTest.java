package dev.retrysafe.ratelimit.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.retrysafe.ratelimit.ConcurrencyDecision;
import dev.retrysafe.ratelimit.ConcurrencyPolicy;
import dev.retrysafe.ratelimit.ConcurrencySlot;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Which way the concurrency store's calls go to a private Redis: a lone acquisition and its
 * release over the store's direct connection (seen from Redis: the connection named
 * {@code retrysafe-rl-direct} ran the script, no other did), none when it is turned off.
 */
class ConcurrencyDirectConnectionTest extends PrivateRedisTest {

    private static final String LANE = "retrysafe-rl-direct";
    private static final String PARTITION = "a:1";
    private final ConcurrencySlot slot =
            new ConcurrencySlot(ConcurrencyPolicy.builder("c").limit(1).build(), "key_1");
    private RedisConcurrencyStore concurrency;

    @AfterEach
    void closeStore() {
        if (concurrency != null) {
            concurrency.close();
        }
    }

    @Test
    void aLoneAcquisitionAndReleaseGoOverTheDirectConnection() {
        concurrency = newStore(true);
        acquireAndRelease(); // EVAL: a new Redis lacks the script
        acquireAndRelease();

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
    void turnedOffEveryCallGoesThroughLettuce() {
        concurrency = newStore(false);
        acquireAndRelease();

        List<String> clients = clients();
        assertThat(clients).noneMatch(c -> c.contains(" name=" + LANE + " "));
        assertThat(clients)
                .filteredOn(c -> c.contains(" cmd=evalsha ") || c.contains(" cmd=eval "))
                .hasSize(1);
    }

    /** Takes the slot (the limit is 1: a second acquisition is refused), releases it, and it is free. */
    private void acquireAndRelease() {
        ConcurrencyDecision first = concurrency.acquire(PARTITION, List.of(slot));
        assertThat(first).isInstanceOf(ConcurrencyDecision.Acquired.class);
        assertThat(concurrency.acquire(PARTITION, List.of(slot))).isInstanceOf(ConcurrencyDecision.Refused.class);
        ((ConcurrencyDecision.Acquired) first).permit().release();
        assertThat(concurrency.inFlight(PARTITION, slot)).isZero();
    }

    private RedisConcurrencyStore newStore(boolean direct) {
        return RedisConcurrencyStore.builder()
                .redisUri(server.uri())
                .keyPrefix("rs-test:")
                .directConnection(direct)
                .commandTimeout(Duration.ofSeconds(2))
                .build();
    }

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
