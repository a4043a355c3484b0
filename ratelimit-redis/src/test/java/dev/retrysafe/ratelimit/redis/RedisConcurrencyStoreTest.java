package dev.retrysafe.ratelimit.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.retrysafe.ratelimit.ConcurrencyDecision;
import dev.retrysafe.ratelimit.ConcurrencyPolicy;
import dev.retrysafe.ratelimit.ConcurrencySlot;
import dev.retrysafe.ratelimit.ConcurrencyStore;
import dev.retrysafe.ratelimit.ConcurrencyStoreContract;
import dev.retrysafe.ratelimit.FailMode;
import dev.retrysafe.ratelimit.Permit;
import dev.retrysafe.testkit.FakeClock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The concurrency contract against Redis, and what only a shared store does: leases that run
 * out when their holder stops renewing them (it died), renewal that keeps a long request's slot,
 * and the fail modes when Redis cannot be reached.
 */
class RedisConcurrencyStoreTest extends ConcurrencyStoreContract {

    private static final Duration LEASE = Duration.ofSeconds(3);
    private final FakeClock clock = new FakeClock(Instant.parse("2026-01-01T00:00:00Z"));
    private TestRedis redis;

    @Override
    protected ConcurrencyStore newStore() {
        redis = TestRedis.connect();
        return builder().build();
    }

    /** A store on the test's prefix whose leases follow Redis's clock and are renewed by its thread. */
    private RedisConcurrencyStore.Builder builder() {
        return configure(RedisConcurrencyStore.builder()
                .redisUri(TestRedis.URI)
                .keyPrefix(redis.prefix())
                .commandTimeout(Duration.ofSeconds(5)));
    }

    /** What a subclass changes in every store the tests build (nothing here: the defaults). */
    protected RedisConcurrencyStore.Builder configure(RedisConcurrencyStore.Builder store) {
        return store;
    }

    /** A store whose leases follow {@link #clock} and are renewed only by {@code renewAll()}. */
    private RedisConcurrencyStore atTimeOfClock() {
        return builder().timeSource(clock).renewalTick(Duration.ZERO).build();
    }

    @AfterEach
    void deleteKeys() {
        redis.close();
    }

    private static ConcurrencySlot slot(int limit) {
        return new ConcurrencySlot(
                ConcurrencyPolicy.builder("leased").limit(limit).lease(LEASE).build(), "key_1");
    }

    @Test
    void aDeadHoldersSlotsComeBackWhenTheirLeaseRunsOut() {
        ConcurrencySlot slot = slot(2);
        RedisConcurrencyStore dying = atTimeOfClock();
        permit(dying.acquire(PARTITION, List.of(slot)));
        permit(dying.acquire(PARTITION, List.of(slot)));
        dying.close(); // as kill -9 would: nothing released, nothing renewed

        try (RedisConcurrencyStore survivor = atTimeOfClock()) {
            clock.advance(LEASE.minusMillis(1));
            refused(survivor.acquire(PARTITION, List.of(slot)));
            assertThat(survivor.inFlight(PARTITION, slot)).isEqualTo(2);

            clock.advance(Duration.ofMillis(1));
            assertThat(survivor.inFlight(PARTITION, slot)).isZero();
            permit(survivor.acquire(PARTITION, List.of(slot)));
            permit(survivor.acquire(PARTITION, List.of(slot)));
            refused(survivor.acquire(PARTITION, List.of(slot)));
        }
    }

    @Test
    void renewalKeepsTheSlotOfARequestThatOutlivesItsLease() {
        ConcurrencySlot slot = slot(1);
        try (RedisConcurrencyStore store = atTimeOfClock();
                RedisConcurrencyStore other = atTimeOfClock()) {
            Permit longRunning = permit(store.acquire(PARTITION, List.of(slot)));
            for (int i = 0; i < 4; i++) {
                clock.advance(LEASE.dividedBy(2));
                assertThat(store.renewAll()).as("slots lost at renewal %d", i).isZero();
                refused(other.acquire(PARTITION, List.of(slot)));
            }

            longRunning.release();
            assertThat(store.held()).isZero();
            permit(other.acquire(PARTITION, List.of(slot)));
        }
    }

    @Test
    void aRenewalAfterTheLeaseRanOutReportsTheSlotLost() {
        ConcurrencySlot slot = slot(1);
        try (RedisConcurrencyStore store = atTimeOfClock();
                RedisConcurrencyStore other = atTimeOfClock()) {
            permit(store.acquire(PARTITION, List.of(slot)));
            clock.advance(LEASE);
            permit(other.acquire(PARTITION, List.of(slot)));

            assertThat(store.renewAll()).isEqualTo(1);
            assertThat(store.held()).as("a lost permit is no longer renewed").isZero();
        }
    }

    @Test
    void theRenewalThreadRenewsWithoutBeingAsked() {
        ConcurrencySlot slot = new ConcurrencySlot(
                ConcurrencyPolicy.builder("short")
                        .limit(1)
                        .lease(Duration.ofSeconds(1))
                        .build(),
                "key_1");
        Permit held = permit(store.acquire(PARTITION, List.of(slot)));

        // Redis's own clock: two leases pass while the permit is held, and the slot stays taken
        long until = System.nanoTime() + Duration.ofMillis(2_200).toNanos();
        org.awaitility.Awaitility.await()
                .atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(100))
                .untilAsserted(() -> {
                    refused(store.acquire(PARTITION, List.of(slot)));
                    assertThat(System.nanoTime()).isGreaterThan(until);
                });
        held.release();
        permit(store.acquire(PARTITION, List.of(slot)));
    }

    @Test
    void unreachableRedisFailsOpenOrClosedPerLimit() {
        ConcurrencyPolicy open = ConcurrencyPolicy.builder("open").limit(1).build();
        ConcurrencyPolicy closed = ConcurrencyPolicy.builder("closed")
                .limit(1)
                .failMode(FailMode.CLOSED)
                .build();
        try (RedisConcurrencyStore nowhere = RedisConcurrencyStore.builder()
                .redisUri("redis://127.0.0.1:1")
                .commandTimeout(Duration.ofMillis(50))
                .connectTimeout(Duration.ofMillis(50))
                .build()) {
            ConcurrencySlot openSlot = new ConcurrencySlot(open, "k");
            Permit uncounted = permit(nowhere.acquire(PARTITION, List.of(openSlot)));
            permit(nowhere.acquire(PARTITION, List.of(openSlot))).release();
            uncounted.release();

            ConcurrencyDecision refused =
                    nowhere.acquire(PARTITION, List.of(openSlot, new ConcurrencySlot(closed, "k")));
            assertThat(refused).isInstanceOf(ConcurrencyDecision.Unavailable.class);
            assertThat(((ConcurrencyDecision.Unavailable) refused).failedClosed())
                    .isEqualTo(closed);
            assertThat(nowhere.inFlight(PARTITION, openSlot)).isEqualTo(-1);
        }
    }
}
