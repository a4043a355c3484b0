package dev.retrysafe.acceptance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.retrysafe.server.Api;
import dev.retrysafe.testkit.StructuredFields;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The rate-limit headers of one answer, read by their structure (RFC 9651 Lists) rather than by
 * string matching: {@code RateLimit-Policy} (what each policy allows), {@code RateLimit} (what
 * is left of each counted budget) and the {@code X-RateLimit-*} set (the policy closest to
 * exhaustion). Every reader fails the test on a malformed or inconsistent header.
 */
final class BudgetHeaders {

    /** A {@code RateLimit-Policy} item: {@code quota} units per {@code windowSeconds}. */
    record Allowance(long quota, long windowSeconds) {}

    /** A {@code RateLimit} item: {@code remaining} units, whole again in {@code resetSeconds}. */
    record Budget(long remaining, long resetSeconds) {}

    private BudgetHeaders() {}

    /** Every policy of {@code RateLimit-Policy}, by name; the header must be there. */
    static Map<String, Allowance> allowances(Api.Answer answer) {
        String field = answer.header("RateLimit-Policy");
        assertThat(field).as("RateLimit-Policy on a %d", answer.status()).isNotNull();
        Map<String, Allowance> allowances = new LinkedHashMap<>();
        for (StructuredFields.Item item : items(field)) {
            Allowance previous = allowances.put(name(item), new Allowance(integer(item, "q"), integer(item, "w")));
            assertThat(previous)
                    .as("policy %s listed twice in %s", name(item), field)
                    .isNull();
        }
        return allowances;
    }

    /**
     * Every budget of {@code RateLimit}, by name, each checked against its policy in
     * {@code RateLimit-Policy}; empty when the header is absent (no budget known).
     */
    static Map<String, Budget> budgets(Api.Answer answer) {
        Map<String, Allowance> allowances = allowances(answer);
        String field = answer.header("RateLimit");
        Map<String, Budget> budgets = new LinkedHashMap<>();
        if (field == null) {
            return budgets;
        }
        for (StructuredFields.Item item : items(field)) {
            String name = name(item);
            Allowance allowance = allowances.get(name);
            assertThat(allowance)
                    .as("RateLimit names %s, which RateLimit-Policy does not list", name)
                    .isNotNull();
            Budget budget = new Budget(integer(item, "r"), integer(item, "t"));
            assertThat(budget.remaining()).as("r of %s", name).isBetween(0L, allowance.quota());
            assertThat(budget.resetSeconds()).as("t of %s", name).isBetween(0L, allowance.windowSeconds());
            budgets.put(name, budget);
        }
        return budgets;
    }

    /**
     * The budget of {@code policy}, which must be known: in {@code RateLimit} and, being the only
     * policy, in the {@code X-RateLimit-*} set in the same figures. {@code sentAt} and
     * {@code answeredAt} bound the time at which the server decided.
     */
    static Budget known(Api.Answer answer, String policy, Instant sentAt, Instant answeredAt) {
        Map<String, Budget> budgets = budgets(answer);
        assertThat(budgets.keySet()).as("RateLimit on a %d", answer.status()).containsExactly(policy);
        Budget budget = budgets.get(policy);
        long quota = allowances(answer).get(policy).quota();
        assertThat(answer.header("X-RateLimit-Resource")).isEqualTo(policy);
        assertThat(number(answer, "X-RateLimit-Limit")).isEqualTo(quota);
        assertThat(number(answer, "X-RateLimit-Remaining")).isEqualTo(budget.remaining());
        assertThat(number(answer, "X-RateLimit-Used")).isEqualTo(quota - budget.remaining());
        assertThat(number(answer, "X-RateLimit-Reset"))
                .as("X-RateLimit-Reset, in UTC epoch seconds")
                .isBetween(sentAt.getEpochSecond() - 1, answeredAt.getEpochSecond() + budget.resetSeconds() + 1);
        return budget;
    }

    /**
     * Checks that {@code policy} is shown as configured but its budget as unknown: listed in
     * {@code RateLimit-Policy}, absent from {@code RateLimit} and {@code X-RateLimit-*}, which would
     * otherwise report a budget nobody counted.
     */
    static void unknown(Api.Answer answer, String policy, Allowance configured) {
        assertThat(allowances(answer))
                .as("RateLimit-Policy on a %d", answer.status())
                .containsExactly(Map.entry(policy, configured));
        assertThat(answer.header("RateLimit"))
                .as("RateLimit of an uncounted %d", answer.status())
                .isNull();
        for (String name : new String[] {"Limit", "Remaining", "Used", "Reset", "Resource"}) {
            assertThat(answer.header("X-RateLimit-" + name))
                    .as("X-RateLimit-%s of an uncounted %d", name, answer.status())
                    .isNull();
        }
    }

    /** {@code Retry-After} as whole seconds, at least 1. */
    static long retryAfter(Api.Answer answer) {
        String field = answer.header("Retry-After");
        assertThat(field).as("Retry-After on a %d", answer.status()).isNotNull().matches("[0-9]+");
        long seconds = Long.parseLong(field);
        assertThat(seconds).as("Retry-After").isGreaterThanOrEqualTo(1L);
        return seconds;
    }

    private static Iterable<StructuredFields.Item> items(String field) {
        return StructuredFields.parseList(field).stream()
                .map(member -> {
                    assertThat(member).as("a member of %s", field).isInstanceOf(StructuredFields.Item.class);
                    return (StructuredFields.Item) member;
                })
                .toList();
    }

    private static String name(StructuredFields.Item item) {
        assertThat(item.value())
                .as("a policy is named by an sf-string: %s", item)
                .isInstanceOf(String.class);
        return (String) item.value();
    }

    private static long integer(StructuredFields.Item item, String parameter) {
        Object value = item.parameter(parameter);
        assertThat(value).as("parameter %s of %s", parameter, item).isInstanceOf(Long.class);
        return (Long) value;
    }

    private static long number(Api.Answer answer, String header) {
        String value = answer.header(header);
        assertThat(value).as(header).isNotNull().matches("[0-9]+");
        return Long.parseLong(value);
    }
}
