package dev.retrysafe.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.retrysafe.testkit.FakeClock;
import dev.retrysafe.testkit.StructuredFields;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** Which set an account is on, at the boundaries, and the headers each set sends. */
class PolicyVersionsTest {

    private static final Instant V0_DEPRECATED = Instant.parse("2026-06-01T00:00:00Z");
    private static final Instant V0_SUNSET = Instant.parse("2026-12-31T00:00:00Z");
    private static final Instant V1_DEPRECATED = Instant.parse("2026-12-01T00:00:00Z");
    private static final Instant V1_SUNSET = Instant.parse("2027-03-31T00:00:00Z");
    private static final Policy V2_KEY =
            Policy.builder("per_key").limit(50, Duration.ofMinutes(1)).build();
    private static final Policy V1_KEY =
            Policy.builder("per_key").limit(100, Duration.ofMinutes(1)).build();

    private final FakeClock clock = new FakeClock(Instant.parse("2026-12-07T12:00:00Z"));

    private PolicyVersions versions() {
        return PolicyVersions.builder()
                .current("v2", "https://example.com/rate-limits/v2", List.of(V2_KEY))
                .previous("v1", "https://example.com/rate-limits/v1", V1_DEPRECATED, V1_SUNSET, List.of(V1_KEY))
                .previous("v0", "https://example.com/rate-limits/v0", V0_DEPRECATED, V0_SUNSET, List.of(V1_KEY))
                .clock(clock)
                .build();
    }

    private static RequestFacts account(Instant createdAt, String pin) {
        return new RequestFacts("key_1", "acct_1", "127.0.0.1", null, null, 1, createdAt, pin);
    }

    @Test
    void anAccountCreatedBeforeDeprecationStaysUntilTheSunsetExactly() {
        PolicyVersions versions = versions();
        Instant justBefore = V1_DEPRECATED.minusMillis(1);

        assertThat(versions.setFor(justBefore, null, V1_SUNSET.toEpochMilli() - 1)
                        .version())
                .isEqualTo("v1");
        assertThat(versions.setFor(justBefore, null, V1_SUNSET.toEpochMilli()).version())
                .as("the sunset is the first instant on the next set")
                .isEqualTo("v2");
        assertThat(versions.setFor(V1_DEPRECATED, null, V1_DEPRECATED.toEpochMilli())
                        .version())
                .as("created at the deprecation: already the current set")
                .isEqualTo("v2");
        assertThat(versions.setFor(null, null, 0).version())
                .as("creation unknown")
                .isEqualTo("v2");
    }

    @Test
    void theOldestGrandfatheredSetWinsAndItsSuccessorIsTheNextOneStillServed() {
        PolicyVersions versions = versions();
        Instant early = Instant.parse("2026-01-01T00:00:00Z");

        PolicySet now = versions.setFor(early, null, clock.millis());
        assertThat(now.version()).isEqualTo("v0");
        PolicySet next = versions.successor(now, early, null);
        assertThat(next).isNotNull();
        assertThat(next.version())
                .as("still before v1's deprecation when created")
                .isEqualTo("v1");
        assertThat(versions.successor(next, early, null).version()).isEqualTo("v2");
        assertThat(versions.successor(versions.current(), early, null)).isNull();
    }

    @Test
    void aPinHoldsUntilItsSetsSunsetAndTheClockMovesTheAccountWithoutARebuild() {
        PolicyVersions versions = versions();
        RequestFacts pinned = account(Instant.parse("2026-12-07T00:00:00Z"), "v1");
        RequestFacts fresh = account(Instant.parse("2026-12-07T00:00:00Z"), null);

        assertThat(versions.setFor(pinned).version()).isEqualTo("v1");
        assertThat(versions.setFor(fresh).version()).isEqualTo("v2");

        clock.set(V1_SUNSET.minusMillis(1));
        assertThat(versions.setFor(pinned).version()).isEqualTo("v1");
        clock.set(V1_SUNSET);
        assertThat(versions.setFor(pinned).version()).isEqualTo("v2");
        assertThat(versions.setFor(account(Instant.EPOCH, "v2")).version())
                .as("pinned to the current set although created long ago")
                .isEqualTo("v2");
        assertThat(versions.setFor(account(Instant.parse("2026-12-07T00:00:00Z"), "gone"))
                        .version())
                .as("a pin to a version no longer configured")
                .isEqualTo("v2");
    }

    @Test
    void aDeprecatedSetSendsDeprecationSunsetAndBothLinksTheCurrentOneOnlyItsName() {
        PolicyVersions versions = versions();
        Decision allowed = new Decision.Allowed(List.of());

        Map<String, String> old = byName(RateLimitHeaders.standard().render(allowed, versions.byVersion("v1")));
        assertThat(old).containsEntry("X-RateLimit-Policy", "v1");
        assertThat(old).containsEntry("X-RateLimit-Policy-Docs", "https://example.com/rate-limits/v1");
        StructuredFields.Item deprecation = StructuredFields.parseItem(old.get("Deprecation"));
        assertThat(deprecation.value()).isEqualTo(new StructuredFields.Date(V1_DEPRECATED.getEpochSecond()));
        assertThat(ZonedDateTime.parse(old.get("Sunset"), DateTimeFormatter.RFC_1123_DATE_TIME)
                        .toInstant())
                .isEqualTo(V1_SUNSET);
        assertThat(old.get("Sunset")).isEqualTo("Wed, 31 Mar 2027 00:00:00 GMT");
        assertThat(old.get("Link"))
                .isEqualTo("<https://example.com/rate-limits/v2>; rel=\"deprecation\","
                        + " <https://example.com/rate-limits/v2>; rel=\"sunset\"");

        Map<String, String> current = byName(RateLimitHeaders.standard().render(allowed, versions.current()));
        assertThat(current)
                .containsOnlyKeys("X-RateLimit-Policy", "X-RateLimit-Policy-Docs")
                .containsEntry("X-RateLimit-Policy", "v2");
    }

    @Test
    void aSunsetEarlyInTheMonthHasATwoDigitDay() {
        assertThat(PolicySet.httpDate(Instant.parse("2027-03-01T08:09:10.900Z")))
                .isEqualTo("Mon, 01 Mar 2027 08:09:10 GMT");
    }

    @Test
    void aPreviousSetCountsApartFromTheCurrentPolicyOfTheSameName() {
        PolicyVersions versions = versions();
        Plans plans = Plans.defaults();
        RequestFacts facts = account(Instant.EPOCH, null);

        Charge current = plans.chargesFor(versions.current(), facts).getFirst();
        Charge old = plans.chargesFor(versions.byVersion("v1"), facts).getFirst();

        assertThat(current.key()).isEqualTo("key_1");
        assertThat(old.key()).isEqualTo("v1/key_1");
        assertThat(old.policy().name()).isEqualTo(current.policy().name());
    }

    @Test
    void theSamePolicyInTwoSetsSpendsTwoBudgetsInOneStore() {
        Policy same = Policy.builder("per_key").limit(2, Duration.ofHours(1)).build();
        PolicyVersions versions = PolicyVersions.builder()
                .current("v2", "https://example.com/v2", List.of(same))
                .previous("v1", "https://example.com/v1", V1_DEPRECATED, V1_SUNSET, List.of(same))
                .clock(clock)
                .build();
        Plans plans = Plans.defaults();
        RequestFacts facts = account(Instant.EPOCH, null);
        try (InMemoryRateLimitStore store =
                InMemoryRateLimitStore.builder().clock(clock).build()) {
            List<Charge> old = plans.chargesFor(versions.byVersion("v1"), facts);
            assertThat(store.decide(facts.partition(), old)).isInstanceOf(Decision.Allowed.class);
            assertThat(store.decide(facts.partition(), old)).isInstanceOf(Decision.Allowed.class);
            assertThat(store.decide(facts.partition(), old)).isInstanceOf(Decision.Rejected.class);

            Decision moved = store.decide(facts.partition(), plans.chargesFor(versions.current(), facts));
            assertThat(moved).as("v2's budget is its own").isInstanceOf(Decision.Allowed.class);
            assertThat(moved.states().getFirst().remaining()).isEqualTo(1);
        }
    }

    /**
     * The filter's path for an account on the current set, with previous sets configured and the
     * system clock: choosing the set allocates nothing, and its charges allocate no more than an
     * unversioned configuration's.
     */
    @Test
    void theCurrentSetCostsNoAllocationBeyondAnUnversionedDecision() {
        PolicyVersions versions = PolicyVersions.builder()
                .current("v2", "https://example.com/v2", List.of(V2_KEY))
                .previous("v1", "https://example.com/v1", V1_DEPRECATED, V1_SUNSET, List.of(V1_KEY))
                .previous("v0", "https://example.com/v0", V0_DEPRECATED, V0_SUNSET, List.of(V1_KEY))
                .build();
        RequestFacts facts = account(Instant.parse("2027-06-01T00:00:00Z"), null);
        Plans plans = Plans.defaults();
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        int n = 1_000_000;
        long sink = 0;
        for (int i = 0; i < n; i++) { // warm up
            sink += versions.setFor(facts).policies().size();
            sink += plans.chargesFor(versions.setFor(facts), facts).size();
            sink += plans.chargesFor(versions.current().policies(), facts).size();
        }

        long before = threads.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < n; i++) {
            sink += versions.setFor(facts).policies().size();
        }
        long choosing = threads.getCurrentThreadAllocatedBytes() - before;
        before = threads.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < n; i++) {
            sink += plans.chargesFor(versions.setFor(facts), facts).size();
        }
        long versioned = threads.getCurrentThreadAllocatedBytes() - before;
        before = threads.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < n; i++) {
            sink += plans.chargesFor(versions.current().policies(), facts).size();
        }
        long unversioned = threads.getCurrentThreadAllocatedBytes() - before;

        assertThat(sink).isPositive();
        assertThat(versions.setFor(facts)).isSameAs(versions.current());
        assertThat(choosing).as("bytes allocated by a million choices").isLessThan(4_096);
        assertThat(versioned)
                .as("a million versioned charge lists against unversioned ones (" + unversioned + " bytes)")
                .isLessThanOrEqualTo(unversioned + 4_096);
    }

    @Test
    void refusesDuplicateVersionsAndPolicyNamesBadUrlsAndASunsetBeforeTheDeprecation() {
        assertThatThrownBy(() -> PolicyVersions.builder()
                        .current("v2", "https://example.com/v2", List.of(V2_KEY))
                        .previous("v2", "https://example.com/v1", V1_DEPRECATED, V1_SUNSET, List.of())
                        .build())
                .hasMessageContaining("version v2 is used twice");
        assertThatThrownBy(() -> PolicyVersions.builder()
                        .current("v2", "https://example.com/v2", List.of(V2_KEY, V2_KEY))
                        .build())
                .hasMessageContaining("policy name per_key is used twice");
        assertThatThrownBy(() -> PolicyVersions.builder()
                        .current("v2", "ftp://example.com/v2", List.of())
                        .build())
                .hasMessageContaining("absolute http(s) URL");
        assertThatThrownBy(() -> PolicyVersions.builder()
                        .current("v2", "https://example.com/a>b", List.of())
                        .build())
                .hasMessageContaining("absolute http(s) URL");
        assertThatThrownBy(() -> PolicyVersions.builder()
                        .current("v 2", "https://example.com/v2", List.of())
                        .build())
                .hasMessageContaining("version must be");
        assertThatThrownBy(() -> PolicyVersions.builder()
                        .previous("v1", "https://example.com/v1", V1_SUNSET, V1_SUNSET, List.of()))
                .hasMessageContaining("must be before sunset");
    }

    private static Map<String, String> byName(List<HeaderField> fields) {
        return fields.stream().collect(Collectors.toMap(HeaderField::name, HeaderField::value));
    }
}
