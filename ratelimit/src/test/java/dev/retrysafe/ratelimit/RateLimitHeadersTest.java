package dev.retrysafe.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.retrysafe.testkit.StructuredFields;
import dev.retrysafe.testkit.StructuredFields.Item;
import dev.retrysafe.testkit.StructuredFields.Member;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Rendered headers, read back with a structured-field parser. */
class RateLimitHeadersTest {

    private static final long NOW = 1_767_225_600_000_000L; // 2026-01-01T00:00:00Z
    private static final Policy BURST =
            Policy.builder("burst").limit(100, Duration.ofMinutes(1)).build();
    private static final Policy DAILY =
            Policy.builder("daily").limit(1000, Duration.ofDays(1)).build();
    private static final Policy FAST =
            Policy.builder("fast").limit(10, Duration.ofMillis(500)).build();

    private static PolicyState state(Policy policy, long remaining, long resetMicros, long retryAfterMicros) {
        return new PolicyState(policy, "key_1", policy.quota(), remaining, resetMicros, retryAfterMicros, NOW, true);
    }

    private static Map<String, String> byName(List<HeaderField> fields) {
        return fields.stream().collect(java.util.stream.Collectors.toMap(HeaderField::name, HeaderField::value));
    }

    @Test
    void aShadowPolicyIsNeverShownEvenWhenItIsClosestToExhaustion() {
        Policy trial = Policy.builder("trial")
                .limit(1, Duration.ofMinutes(1))
                .mode(PolicyMode.SHADOW)
                .build();
        Decision decision =
                new Decision.Allowed(List.of(state(trial, 0, 60_000_000, 60_000_000), state(BURST, 40, 0, 0)));

        Map<String, String> headers = byName(RateLimitHeaders.standard().render(decision));

        assertThat(StructuredFields.parseList(headers.get("RateLimit-Policy"))).hasSize(1);
        assertThat(headers.values()).noneMatch(value -> value.contains("trial"));
        assertThat(headers.get("X-RateLimit-Resource")).isEqualTo("burst");
        assertThat(headers).doesNotContainKey("Retry-After");
    }

    @Test
    void rendersOneItemPerPolicyAndTheClosestToExhaustion() {
        Decision decision =
                new Decision.Allowed(List.of(state(BURST, 40, 12_300_000, 0), state(DAILY, 100, 36_000_000_000L, 0)));

        List<HeaderField> fields = RateLimitHeaders.standard().render(decision);

        assertThat(fields)
                .extracting(HeaderField::name)
                .containsExactly(
                        "RateLimit-Policy",
                        "RateLimit",
                        "X-RateLimit-Limit",
                        "X-RateLimit-Remaining",
                        "X-RateLimit-Used",
                        "X-RateLimit-Reset",
                        "X-RateLimit-Resource");
        Map<String, String> headers = byName(fields);
        List<Member> policies = StructuredFields.parseList(headers.get("RateLimit-Policy"));
        assertThat(policies).hasSize(2);
        assertThat(item(policies, 0).value()).isEqualTo("burst");
        assertThat(item(policies, 0).parameters()).containsExactly(Map.entry("q", 100L), Map.entry("w", 60L));
        assertThat(item(policies, 1).parameters()).containsExactly(Map.entry("q", 1000L), Map.entry("w", 86_400L));

        List<Member> limits = StructuredFields.parseList(headers.get("RateLimit"));
        assertThat(item(limits, 0).value()).isEqualTo("burst");
        assertThat(item(limits, 0).parameters()).containsExactly(Map.entry("r", 40L), Map.entry("t", 13L));
        assertThat(item(limits, 1).parameters()).containsExactly(Map.entry("r", 100L), Map.entry("t", 36_000L));

        // daily has 10% left, burst 40%
        assertThat(StructuredFields.parseItem(headers.get("X-RateLimit-Limit")).value())
                .isEqualTo(1000L);
        assertThat(StructuredFields.parseItem(headers.get("X-RateLimit-Remaining"))
                        .value())
                .isEqualTo(100L);
        assertThat(StructuredFields.parseItem(headers.get("X-RateLimit-Used")).value())
                .isEqualTo(900L);
        assertThat(StructuredFields.parseItem(headers.get("X-RateLimit-Reset")).value())
                .isEqualTo(1_767_225_600L + 36_000L);
        assertThat(headers.get("X-RateLimit-Resource")).isEqualTo("daily");
        assertThat(headers).doesNotContainKey("Retry-After");
    }

    @Test
    void aRejectionCarriesRetryAfter() {
        PolicyState refused = state(BURST, 0, 60_000_000, 1_500_000);
        Decision decision = new Decision.Rejected(refused, 2, List.of(refused));

        Map<String, String> headers = byName(RateLimitHeaders.standard().render(decision));

        assertThat(StructuredFields.parseItem(headers.get("Retry-After")).value())
                .isEqualTo(2L);
        assertThat(item(StructuredFields.parseList(headers.get("RateLimit")), 0).parameter("r"))
                .isEqualTo(0L);
    }

    @Test
    void jitterAddsUpToItsMaximumFromTheInjectedRandom() {
        PolicyState refused = state(BURST, 0, 60_000_000, 1_500_000);
        Decision decision = new Decision.Rejected(refused, 2, List.of(refused));
        RateLimitHeaders headers = RateLimitHeaders.builder()
                .retryAfterJitterSeconds(3)
                .random(new Random(7))
                .build();

        java.util.Set<Long> seen = new java.util.TreeSet<>();
        for (int i = 0; i < 200; i++) {
            seen.add((Long)
                    StructuredFields.parseItem(byName(headers.render(decision)).get("Retry-After"))
                            .value());
        }

        assertThat(seen).containsExactly(2L, 3L, 4L, 5L);
    }

    @Test
    void unknownStatesAppearOnlyInThePolicyList() {
        PolicyState unknown = PolicyState.unknown(DAILY, "key_1", NOW);
        Decision decision = new Decision.Unavailable(DAILY, 1, List.of(state(BURST, 99, 600_000, 0), unknown));

        Map<String, String> headers = byName(RateLimitHeaders.standard().render(decision));

        assertThat(StructuredFields.parseList(headers.get("RateLimit-Policy"))).hasSize(2);
        List<Member> limits = StructuredFields.parseList(headers.get("RateLimit"));
        assertThat(limits).hasSize(1);
        assertThat(item(limits, 0).value()).isEqualTo("burst");
        assertThat(headers.get("X-RateLimit-Resource")).isEqualTo("burst");
        assertThat(StructuredFields.parseItem(headers.get("Retry-After")).value())
                .isEqualTo(1L);
    }

    @Test
    void onlyUnknownStatesRenderNoLimits() {
        Decision decision = new Decision.Allowed(List.of(PolicyState.unknown(BURST, "k", NOW)));

        assertThat(RateLimitHeaders.standard().render(decision))
                .extracting(HeaderField::name)
                .containsExactly("RateLimit-Policy");
    }

    @Test
    void aSubSecondWindowHasNoWindowParameter() {
        Decision decision = new Decision.Allowed(List.of(state(FAST, 9, 50_000, 0)));

        Map<String, String> headers = byName(RateLimitHeaders.standard().render(decision));

        assertThat(item(StructuredFields.parseList(headers.get("RateLimit-Policy")), 0)
                        .parameters())
                .containsExactly(Map.entry("q", 10L));
        assertThat(item(StructuredFields.parseList(headers.get("RateLimit")), 0).parameters())
                .containsExactly(Map.entry("r", 9L), Map.entry("t", 1L));
    }

    @Test
    void noPoliciesNoHeaders() {
        assertThat(RateLimitHeaders.standard().render(new Decision.Allowed(List.of())))
                .isEmpty();
    }

    @Test
    void stringsAreEscaped() {
        StringBuilder out = new StringBuilder();
        RateLimitHeaders.appendString(out, "a\"b\\c");

        assertThat(StructuredFields.parseItem(out.toString()).value()).isEqualTo("a\"b\\c");
    }

    @Test
    void rendersWhatAStoreDecides() {
        InMemoryRateLimitStore store = InMemoryRateLimitStore.builder()
                .clock(new dev.retrysafe.testkit.FakeClock())
                .build();
        Policy policy =
                Policy.builder("per_key").limit(2, Duration.ofSeconds(10)).build();
        List<Charge> charges = List.of(new Charge(policy, "k", 1));
        store.decide("p", charges);
        store.decide("p", charges);

        Map<String, String> headers = byName(RateLimitHeaders.standard().render(store.decide("p", charges)));

        assertThat(StructuredFields.parseItem(headers.get("Retry-After")).value())
                .isEqualTo(5L);
        assertThat(item(StructuredFields.parseList(headers.get("RateLimit")), 0).parameters())
                .containsExactly(Map.entry("r", 0L), Map.entry("t", 10L));
    }

    private static Item item(List<Member> members, int index) {
        return (Item) members.get(index);
    }
}
