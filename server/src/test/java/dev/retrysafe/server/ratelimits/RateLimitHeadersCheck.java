package dev.retrysafe.server.ratelimits;

import static org.assertj.core.api.Assertions.assertThat;

import dev.retrysafe.server.Api;
import dev.retrysafe.testkit.StructuredFields;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads both rate-limit header sets of an answer with a structured-field parser and checks that
 * they are well-formed and agree with each other.
 */
final class RateLimitHeadersCheck {

    /** One policy as the {@code RateLimit-Policy} and {@code RateLimit} headers describe it. */
    record Budget(String policy, long quota, long windowSeconds, long remaining, long resetSeconds) {}

    private RateLimitHeadersCheck() {}

    /** Every policy of {@code answer}'s headers, by name; fails on anything malformed. */
    static Map<String, Budget> budgets(Api.Answer answer, Instant now) {
        String policyHeader = answer.header("RateLimit-Policy");
        String limitHeader = answer.header("RateLimit");
        assertThat(policyHeader).as("RateLimit-Policy on a %d", answer.status()).isNotNull();
        assertThat(limitHeader).as("RateLimit on a %d", answer.status()).isNotNull();
        Map<String, long[]> quotas = new LinkedHashMap<>();
        for (StructuredFields.Member member : StructuredFields.parseList(policyHeader)) {
            StructuredFields.Item item = (StructuredFields.Item) member;
            assertThat(item.value()).as("a policy is named by an sf-string").isInstanceOf(String.class);
            quotas.put((String) item.value(), new long[] {number(item, "q"), number(item, "w")});
        }
        Map<String, Budget> budgets = new LinkedHashMap<>();
        for (StructuredFields.Member member : StructuredFields.parseList(limitHeader)) {
            StructuredFields.Item item = (StructuredFields.Item) member;
            String name = (String) item.value();
            long[] quota = quotas.get(name);
            assertThat(quota)
                    .as("RateLimit item %s has a RateLimit-Policy item", name)
                    .isNotNull();
            long remaining = number(item, "r");
            long reset = number(item, "t");
            assertThat(remaining).isBetween(0L, quota[0]);
            assertThat(reset).isGreaterThanOrEqualTo(0L);
            budgets.put(name, new Budget(name, quota[0], quota[1], remaining, reset));
        }
        // the X- set describes the policy closest to exhaustion, in the same figures
        String resource = answer.header("X-RateLimit-Resource");
        Budget closest = budgets.get(resource);
        assertThat(closest)
                .as("X-RateLimit-Resource names a policy of RateLimit: %s", resource)
                .isNotNull();
        long limit = Long.parseLong(answer.header("X-RateLimit-Limit"));
        long remaining = Long.parseLong(answer.header("X-RateLimit-Remaining"));
        long used = Long.parseLong(answer.header("X-RateLimit-Used"));
        long resetAt = Long.parseLong(answer.header("X-RateLimit-Reset"));
        assertThat(limit).isEqualTo(closest.quota());
        assertThat(remaining).isEqualTo(closest.remaining());
        assertThat(used).isEqualTo(limit - remaining);
        assertThat(resetAt)
                .as("X-RateLimit-Reset is UTC epoch seconds")
                .isBetween(now.getEpochSecond(), now.getEpochSecond() + closest.resetSeconds() + 1);
        return budgets;
    }

    private static long number(StructuredFields.Item item, String parameter) {
        Object value = item.parameter(parameter);
        assertThat(value).as("parameter %s of %s", parameter, item).isInstanceOf(Long.class);
        return (Long) value;
    }

    /** The single budget of an answer limited by one policy. */
    static Budget only(Api.Answer answer, Instant now) {
        List<Budget> all = List.copyOf(budgets(answer, now).values());
        assertThat(all).hasSize(1);
        return all.get(0);
    }
}
