package dev.retrysafe.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.retrysafe.testkit.FakeClock;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The buffered decision against the one that returns a {@link Decision}: the same decisions, the
 * same states, the same header facts, and no allocation in steady state.
 */
class DecisionBufferTest {

    private static final String PARTITION = "a:acct_1";
    private static final long BASE_SEED = Long.getLong("retrysafe.test.seed", 0xB0FF_E2L);

    /**
     * Two stores on one clock, one decided with {@code decide(partition, charges)}, the other into
     * one reused buffer: random requests over up to four policies (shadow and fail-closed ones
     * among them), on a store small enough to fill, give equal decisions at every step.
     */
    @ParameterizedTest
    @ValueSource(ints = {0, 1, 2, 3, 4, 5, 6, 7})
    void decidesExactlyAsTheDecisionReturningPath(int run) {
        long seed = BASE_SEED + run;
        Random r = new Random(seed);
        FakeClock clock = new FakeClock(Instant.parse("2026-01-01T00:00:00Z"));
        long maxKeys = 4 + r.nextInt(8);
        InMemoryRateLimitStore plain =
                InMemoryRateLimitStore.builder().clock(clock).maxKeys(maxKeys).build();
        InMemoryRateLimitStore buffered =
                InMemoryRateLimitStore.builder().clock(clock).maxKeys(maxKeys).build();
        List<Policy> policies = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            Algorithm algorithm = Algorithm.values()[r.nextInt(Algorithm.values().length)];
            Policy base = RandomPolicies.policy(r, algorithm);
            policies.add(Policy.builder("p" + i)
                    .algorithm(algorithm)
                    .limit(base.quota(), base.window())
                    .burst(base.burst())
                    .mode(r.nextInt(3) == 0 ? PolicyMode.SHADOW : PolicyMode.ENFORCE)
                    .failMode(r.nextInt(3) == 0 ? FailMode.CLOSED : FailMode.OPEN)
                    .build());
        }
        DecisionBuffer buffer = new DecisionBuffer(1);

        for (int step = 0; step < 3_000; step++) {
            List<Policy> shuffled = new ArrayList<>(policies);
            Collections.shuffle(shuffled, r);
            List<Charge> charges = new ArrayList<>();
            int count = r.nextInt(4);
            for (int i = 0; i < count; i++) {
                charges.add(new Charge(shuffled.get(i), "k" + r.nextInt(6), 1 + r.nextInt(3)));
            }

            Decision expected = plain.decide(PARTITION, charges);
            buffered.decide(PARTITION, charges, buffer);

            String at = "seed " + seed + ", step " + step + ", charges " + charges;
            assertThat(buffer.toDecision()).as(at).isEqualTo(expected);
            assertThat(buffer.retryAfterSeconds()).as(at).isEqualTo(retryAfterSeconds(expected));
            int closest = buffer.closestToExhaustion();
            assertThat(closest < 0 ? null : buffer.state(closest)).as(at).isEqualTo(expected.closestToExhaustion());
            if (expected instanceof Decision.Rejected rejected) {
                assertThat(buffer.state(buffer.refusedBy())).as(at).isEqualTo(rejected.refusedBy());
            }
            for (int i = 0; i < buffer.size(); i++) {
                assertThat(buffer.wouldHaveRefused(i))
                        .as(at)
                        .isEqualTo(ShadowPolicies.wouldHaveRefused(
                                expected.states().get(i)));
            }
            if (r.nextInt(10) == 0) {
                List<Charge> refunded =
                        charges.stream().filter(c -> !c.policy().shadow()).toList();
                assertThat(buffered.refund(PARTITION, refunded)).as(at).isEqualTo(plain.refund(PARTITION, refunded));
            }
            clock.advance(Duration.ofNanos(1_000L * r.nextInt(r.nextBoolean() ? 2_000 : 3_000_000)));
        }
    }

    private static long retryAfterSeconds(Decision decision) {
        return switch (decision) {
            case Decision.Allowed allowed -> 0;
            case Decision.Rejected rejected -> rejected.retryAfterSeconds();
            case Decision.Unavailable unavailable -> unavailable.retryAfterSeconds();
        };
    }

    @Test
    void aCopiedDecisionGivesItselfBack() {
        FakeClock clock = new FakeClock(Instant.parse("2026-01-01T00:00:00Z"));
        InMemoryRateLimitStore store =
                InMemoryRateLimitStore.builder().clock(clock).build();
        Policy small = Policy.builder("small").limit(1, Duration.ofMinutes(1)).build();
        Policy large = Policy.builder("large").limit(100, Duration.ofMinutes(1)).build();
        List<Charge> charges = List.of(new Charge(large, "k", 1), new Charge(small, "k", 1));
        Decision allowed = store.decide(PARTITION, charges);
        Decision rejected = store.decide(PARTITION, charges);

        DecisionBuffer buffer = new DecisionBuffer(0);

        assertThat(buffer.set(allowed).toDecision()).isEqualTo(allowed);
        assertThat(buffer.outcome()).isEqualTo(DecisionBuffer.Outcome.ALLOWED);
        assertThat(buffer.set(rejected).toDecision()).isEqualTo(rejected);
        assertThat(buffer.refusedBy()).isEqualTo(1);
        assertThat(buffer.retryAfterSeconds()).isEqualTo(60);
        assertThat(buffer.clear().toDecision()).isEqualTo(new Decision.Allowed(List.of()));
    }

    /** The filter's path, one and three policies (one of them shadow), allocates nothing once warm. */
    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3})
    void allocatesNothingInSteadyState(int policies) {
        InMemoryRateLimitStore store =
                InMemoryRateLimitStore.builder().clock(Clock.systemUTC()).build();
        List<Charge> charges = new ArrayList<>();
        for (int i = 0; i < policies; i++) {
            charges.add(new Charge(
                    Policy.builder("p" + i)
                            .limit(1_000_000_000, Duration.ofSeconds(1))
                            .mode(i == 2 ? PolicyMode.SHADOW : PolicyMode.ENFORCE)
                            .build(),
                    "key-" + i,
                    1));
        }
        List<Charge> request = List.copyOf(charges);
        DecisionBuffer buffer = new DecisionBuffer();
        long sink = 0;
        for (int i = 0; i < 300_000; i++) {
            store.decide(PARTITION, request, buffer);
            sink += buffer.remaining(buffer.closestToExhaustion());
        }

        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        long before = threads.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < 1_000_000; i++) {
            store.decide(PARTITION, request, buffer);
            sink += buffer.remaining(buffer.closestToExhaustion()) + buffer.retryAfterSeconds();
        }
        long allocated = threads.getCurrentThreadAllocatedBytes() - before;

        assertThat(sink).isPositive();
        assertThat(buffer.outcome()).isEqualTo(DecisionBuffer.Outcome.ALLOWED);
        assertThat(allocated).as("bytes allocated by a million decisions").isLessThan(4_096);
    }
}
