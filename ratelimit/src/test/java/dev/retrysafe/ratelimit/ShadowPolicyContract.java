package dev.retrysafe.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.retrysafe.testkit.FakeClock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * What every {@link RateLimitStore} does with {@linkplain PolicyMode#SHADOW shadow} policies
 * ({@link ShadowPolicies}), written once and run against each backend (in memory here; Redis in
 * {@code retrysafe-ratelimit-redis} through this module's test-jar). Time stands still unless a
 * test moves {@link #clock}.
 */
@SuppressWarnings("exports") // FakeClock comes from the testkit, a test-only class-path jar
public abstract class ShadowPolicyContract {

    protected static final String PARTITION = "a:acct_1";

    protected FakeClock clock;
    protected RateLimitStore store;

    /** For subclasses, one per backend. */
    protected ShadowPolicyContract() {}

    /** An empty store reading its time from {@code clock}. */
    protected abstract RateLimitStore newStore(FakeClock clock);

    @BeforeEach
    void openStore() {
        clock = new FakeClock(Instant.parse("2026-01-01T00:00:00Z"));
        store = newStore(clock);
    }

    @AfterEach
    void closeStore() {
        store.close();
    }

    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void aShadowPolicyOfOnePerMinuteRefusesNothingAndReportsNineteenWouldBeRefusals(Algorithm algorithm) {
        Policy enforced = policy("key", algorithm, 100, PolicyMode.ENFORCE);
        Policy trial = policy("trial", algorithm, 1, PolicyMode.SHADOW);
        List<Charge> charges = List.of(new Charge(enforced, "k", 1), new Charge(trial, "k", 1));

        int wouldBeRefusals = 0;
        for (int i = 0; i < 20; i++) {
            Decision decision = store.decide(PARTITION, charges);
            assertThat(decision).as("request %d", i + 1).isInstanceOf(Decision.Allowed.class);
            assertThat(decision.states()).extracting(s -> s.policy().name()).containsExactly("key", "trial");
            if (ShadowPolicies.wouldHaveRefused(decision.states().get(1))) {
                wouldBeRefusals++;
            }
        }

        assertThat(wouldBeRefusals).isEqualTo(19);
        // the enforced policy counted all twenty, the shadow one only the one it would have let through
        assertThat(peek(enforced).remaining()).isEqualTo(80);
        assertThat(peek(trial).remaining()).isZero();
    }

    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void anEnforcedPolicyStillRefusesAndWhatItRefusesSpendsNothingUnderTheShadowOne(Algorithm algorithm) {
        Policy enforced = policy("key", algorithm, 3, PolicyMode.ENFORCE);
        Policy trial = policy("trial", algorithm, 100, PolicyMode.SHADOW);
        List<Charge> charges = List.of(new Charge(trial, "k", 1), new Charge(enforced, "k", 1));

        int allowed = 0;
        for (int i = 0; i < 5; i++) {
            Decision decision = store.decide(PARTITION, charges);
            if (decision instanceof Decision.Allowed) {
                allowed++;
            } else {
                Decision.Rejected rejected = (Decision.Rejected) decision;
                assertThat(rejected.refusedBy().policy()).isEqualTo(enforced);
                assertThat(rejected.states()).extracting(PolicyState::policy).containsExactly(enforced);
            }
        }

        assertThat(allowed).isEqualTo(3);
        assertThat(peek(trial).remaining())
                .as("the shadow policy spent only for the 3 allowed")
                .isEqualTo(97);
    }

    @Test
    void shadowPoliciesAreDecidedEachOnItsOwn() {
        Policy tight = policy("tight", Algorithm.FIXED_WINDOW, 1, PolicyMode.SHADOW);
        Policy loose = policy("loose", Algorithm.FIXED_WINDOW, 5, PolicyMode.SHADOW);
        List<Charge> charges = List.of(new Charge(tight, "k", 1), new Charge(loose, "k", 1));

        for (int i = 0; i < 5; i++) {
            Decision decision = store.decide(PARTITION, charges);
            assertThat(decision).isInstanceOf(Decision.Allowed.class);
            assertThat(ShadowPolicies.wouldHaveRefused(decision.states().get(0)))
                    .isEqualTo(i > 0);
            assertThat(ShadowPolicies.wouldHaveRefused(decision.states().get(1)))
                    .isFalse();
        }
        // the tight one's would-be refusals did not stop the loose one from counting all five
        assertThat(peek(loose).remaining()).isZero();
        Decision sixth = store.decide(PARTITION, charges);
        assertThat(sixth.states())
                .allSatisfy(s -> assertThat(ShadowPolicies.wouldHaveRefused(s)).isTrue());
        assertThat(sixth.states().get(0).retryAfterMicros()).isEqualTo(60_000_000L);
    }

    @Test
    void aRefundGivesAShadowChargeBack() {
        Policy enforced = policy("key", Algorithm.GCRA, 10, PolicyMode.ENFORCE);
        Policy trial = policy("trial", Algorithm.GCRA, 2, PolicyMode.SHADOW);
        List<Charge> charges = List.of(new Charge(enforced, "k", 1), new Charge(trial, "k", 1));

        assertThat(store.decide(PARTITION, charges)).isInstanceOf(Decision.Allowed.class);
        assertThat(peek(trial).remaining()).isEqualTo(1);
        assertThat(store.refund(PARTITION, charges)).isInstanceOf(Decision.Allowed.class);

        assertThat(peek(trial).remaining()).isEqualTo(2);
        assertThat(peek(enforced).remaining()).isEqualTo(10);
    }

    @Test
    void onlyShadowPoliciesNeverRefuse() {
        Policy trial = policy("trial", Algorithm.TOKEN_BUCKET, 1, PolicyMode.SHADOW);
        List<Charge> charges = List.of(new Charge(trial, "k", 1));

        assertThat(ShadowPolicies.wouldHaveRefused(
                        store.decide(PARTITION, charges).states().getFirst()))
                .isFalse();
        Decision second = store.decide(PARTITION, charges);
        assertThat(second).isInstanceOf(Decision.Allowed.class);
        assertThat(ShadowPolicies.wouldHaveRefused(second.states().getFirst())).isTrue();
        // a minute later the one unit is back
        clock.advance(Duration.ofMinutes(1));
        assertThat(ShadowPolicies.wouldHaveRefused(
                        store.decide(PARTITION, charges).states().getFirst()))
                .isFalse();
    }

    private PolicyState peek(Policy policy) {
        return store.peek(PARTITION, List.of(new Charge(policy, "k", 1)))
                .states()
                .getFirst();
    }

    private static Policy policy(String name, Algorithm algorithm, long quota, PolicyMode mode) {
        return Policy.builder(name)
                .algorithm(algorithm)
                .limit(quota, Duration.ofMinutes(1))
                .mode(mode)
                .build();
    }
}
