package dev.retrysafe.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class PlansTest {

    private static final Policy PER_KEY =
            Policy.builder("per_key").limit(10, Duration.ofSeconds(1)).burst(20).build();
    private static final Policy PER_IP = Policy.builder("per_ip")
            .scope(Scope.ip())
            .limit(5, Duration.ofSeconds(1))
            .cost(2)
            .build();
    private static final Policy REPORTS = Policy.builder("reports")
            .scope(Scope.accountAndRouteGroup())
            .limit(60, Duration.ofHours(1))
            .routeGroup("reports")
            .build();
    private static final List<Policy> POLICIES = List.of(PER_KEY, PER_IP, REPORTS);

    @Test
    void chargesEveryApplicablePolicyScaledByThePlanInPolicyOrder() {
        RequestFacts facts = new RequestFacts("key_1", "acct_1", "10.0.0.1", "reports", "pro", 3);

        List<Charge> charges = Plans.defaults().chargesFor(POLICIES, facts);

        assertThat(charges).extracting(c -> c.policy().name()).containsExactly("per_key", "per_ip", "reports");
        assertThat(charges).extracting(Charge::key).containsExactly("key_1", "10.0.0.1", "acct_1|reports");
        assertThat(charges).extracting(Charge::cost).containsExactly(3L, 6L, 3L);
        assertThat(charges.getFirst().policy().quota()).isEqualTo(100);
        assertThat(charges.getFirst().policy().burst()).isEqualTo(200);
    }

    @Test
    void skipsPoliciesWhoseScopeOrRouteGroupDoesNotApply() {
        RequestFacts anonymous = new RequestFacts(null, null, "10.0.0.1", null, null, 1);

        assertThat(Plans.defaults().chargesFor(POLICIES, anonymous))
                .extracting(c -> c.policy().name())
                .containsExactly("per_ip");
    }

    @Test
    void anUnknownOrMissingPlanGetsTheDefaultPlansFactor() {
        Plans plans = Plans.builder()
                .plan("Basic", 2)
                .plan("gold", 50)
                .defaultPlan("basic")
                .build();

        assertThat(plans.factorFor("GOLD ")).isEqualTo(50);
        assertThat(plans.factorFor("platinum")).isEqualTo(2);
        assertThat(plans.factorFor(null)).isEqualTo(2);
        assertThat(Plans.defaults().factorFor("enterprise")).isEqualTo(100);
    }

    @Test
    void scaledPoliciesAreCachedSoStoresSeeOnePolicyPerPlan() {
        RequestFacts facts = new RequestFacts("key_1", "acct_1", null, null, "enterprise", 1);
        Plans plans = Plans.defaults();

        Policy first = plans.chargesFor(POLICIES, facts).getFirst().policy();
        Policy second = plans.chargesFor(POLICIES, facts).getFirst().policy();

        assertThat(second).isSameAs(first);
        assertThat(plans.chargesFor(List.of(PER_KEY), new RequestFacts("k", null, null, null, "free", 1))
                        .getFirst()
                        .policy())
                .isSameAs(PER_KEY);
    }

    @Test
    void aHugeCostSaturatesInsteadOfWrapping() {
        Policy costly = Policy.builder("costly")
                .limit(10, Duration.ofSeconds(1))
                .cost(Long.MAX_VALUE / 2)
                .build();

        Charge charge = Plans.defaults()
                .chargesFor(List.of(costly), new RequestFacts("k", null, null, null, null, 3))
                .getFirst();

        assertThat(charge.cost()).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void rejectsABadConfiguration() {
        assertThatThrownBy(() -> Plans.builder().plan("free", 0).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("free");
        assertThatThrownBy(() ->
                        Plans.builder().plan("pro", 10).defaultPlan("free").build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("default plan free");
    }
}
