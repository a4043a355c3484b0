package dev.retrysafe.server.config;

import com.fasterxml.jackson.databind.JsonNode;
import dev.retrysafe.ratelimit.Algorithm;
import dev.retrysafe.ratelimit.ConcurrencyPolicy;
import dev.retrysafe.ratelimit.FailMode;
import dev.retrysafe.ratelimit.Policy;
import dev.retrysafe.ratelimit.PolicyMode;
import dev.retrysafe.ratelimit.RequestFacts;
import dev.retrysafe.ratelimit.Scope;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Reads {@code rate_limits.policies}: a list of mappings with {@code name}, {@code scope},
 * {@code quota} and {@code window}, and optionally {@code algorithm} (gcra), {@code burst} (the
 * quota), {@code cost} (1), {@code fail} (open; or closed, local), {@code route_group},
 * {@code applies_to} ({@code all}, {@code authenticated} or {@code unauthenticated}) and
 * {@code mode} ({@code enforce} or {@code shadow}). An entry with {@code kind: concurrency} is a
 * concurrency limit instead ({@link #concurrency}): {@code name}, {@code scope} and {@code limit},
 * optionally {@code lease}, {@code fail}, {@code route_group} and {@code applies_to}. Every error
 * names the entry and the field, e.g. {@code rate_limits.policies[1].quota}.
 */
final class RateLimitPolicies {

    private static final String SETTING = "rate_limits.policies";
    private static final Set<String> FIELDS = Set.of(
            "name",
            "kind",
            "scope",
            "algorithm",
            "quota",
            "window",
            "burst",
            "cost",
            "fail",
            "route_group",
            "applies_to",
            "mode");

    private RateLimitPolicies() {}

    static List<Policy> parse(JsonNode list) {
        return parse(list, SETTING);
    }

    /**
     * Reads a list of policies found at {@code setting} (such as {@code
     * rate_limits.previous[0].policies}), with the same fields and errors naming that path.
     */
    static List<Policy> parse(JsonNode list, String setting) {
        if (list.isNull() || list.isMissingNode()) {
            return List.of();
        }
        if (!list.isArray()) {
            throw new ConfigException(setting, setting + " must be a list of policies");
        }
        List<Policy> policies = new ArrayList<>();
        for (int i = 0; i < list.size(); i++) {
            if (!isConcurrency(list.get(i), setting + "[" + i + "]")) {
                policies.add(policy(list.get(i), setting + "[" + i + "]"));
            }
        }
        return policies;
    }

    // --- kind: concurrency ---------------------------------------------------------------------

    private static final Set<String> CONCURRENCY_FIELDS =
            Set.of("name", "kind", "scope", "limit", "lease", "fail", "route_group", "applies_to");

    /** The entries of {@code rate_limits.policies} with {@code kind: concurrency}, in order. */
    static List<ConcurrencyPolicy> concurrency(JsonNode list) {
        if (list.isNull() || list.isMissingNode()) {
            return List.of();
        }
        if (!list.isArray()) {
            throw new ConfigException(SETTING, SETTING + " must be a list of policies");
        }
        List<ConcurrencyPolicy> policies = new ArrayList<>();
        for (int i = 0; i < list.size(); i++) {
            String at = SETTING + "[" + i + "]";
            if (isConcurrency(list.get(i), at)) {
                policies.add(concurrencyPolicy(list.get(i), at));
            }
        }
        return policies;
    }

    /** Whether the entry says {@code kind: concurrency}; {@code rate} (the default) is the other kind. */
    private static boolean isConcurrency(JsonNode entry, String at) {
        if (!entry.isObject()) {
            return false; // policy() says what is wrong with it
        }
        String kind = optional(entry, "kind", "rate");
        return switch (kind) {
            case "rate" -> false;
            case "concurrency" -> true;
            default ->
                throw new ConfigException(at + ".kind", at + ".kind must be rate or concurrency, was '" + kind + "'");
        };
    }

    private static ConcurrencyPolicy concurrencyPolicy(JsonNode entry, String at) {
        for (Iterator<String> it = entry.fieldNames(); it.hasNext(); ) {
            String field = it.next();
            if (!CONCURRENCY_FIELDS.contains(field)) {
                throw new ConfigException(
                        at + "." + field,
                        "unknown setting '" + at + "." + field + "' (a concurrency policy has "
                                + String.join(", ", new java.util.TreeSet<>(CONCURRENCY_FIELDS)) + ")");
            }
        }
        String name = required(entry, at, "name");
        Scope scope = parsed(at, "scope", () -> Scope.parse(required(entry, at, "scope")));
        scope = restricted(scope, at, optional(entry, "applies_to", "all"));
        long limit = number(entry, at, "limit", -1);
        if (limit < 1 || limit > 1_000_000) {
            throw new ConfigException(at + ".limit", at + ".limit must be 1 to 1000000, was " + limit);
        }
        JsonNode leaseNode = entry.get("lease");
        java.time.Duration lease = leaseNode == null || leaseNode.isNull()
                ? ConcurrencyPolicy.DEFAULT_LEASE
                : Durations.parse(at + ".lease", leaseNode.asText().trim());
        FailMode fail = parsed(at, "fail", () -> FailMode.parse(optional(entry, "fail", "open")));
        String group = optional(entry, "route_group", "");
        try {
            return new ConcurrencyPolicy(name, scope, (int) limit, lease, fail, group.isEmpty() ? null : group);
        } catch (IllegalArgumentException e) {
            throw new ConfigException(at, at + ": " + e.getMessage());
        }
    }

    private static Policy policy(JsonNode entry, String at) {
        if (!entry.isObject()) {
            throw new ConfigException(at, at + " must be a mapping with name, scope, quota and window");
        }
        for (Iterator<String> it = entry.fieldNames(); it.hasNext(); ) {
            String field = it.next();
            if (!FIELDS.contains(field)) {
                throw new ConfigException(
                        at + "." + field,
                        "unknown setting '" + at + "." + field + "' (a policy has "
                                + String.join(", ", new java.util.TreeSet<>(FIELDS)) + ")");
            }
        }
        String name = required(entry, at, "name");
        Scope scope = parsed(at, "scope", () -> Scope.parse(required(entry, at, "scope")));
        String appliesTo = optional(entry, "applies_to", "all");
        scope = restricted(scope, at, appliesTo);
        Algorithm algorithm = parsed(at, "algorithm", () -> Algorithm.parse(optional(entry, "algorithm", "gcra")));
        long quota = number(entry, at, "quota", -1);
        java.time.Duration window = Durations.parse(at + ".window", required(entry, at, "window"));
        long burst = number(entry, at, "burst", quota);
        long cost = number(entry, at, "cost", 1);
        FailMode fail = parsed(at, "fail", () -> FailMode.parse(optional(entry, "fail", "open")));
        String group = optional(entry, "route_group", "");
        try {
            return new Policy(
                    name,
                    scope,
                    algorithm,
                    quota,
                    window,
                    burst,
                    cost,
                    fail,
                    group.isEmpty() ? null : group,
                    mode(entry, at));
        } catch (IllegalArgumentException e) {
            throw new ConfigException(at, at + ": " + e.getMessage());
        }
    }

    /** {@code mode}: {@code enforce} (the default) or {@code shadow}, which counts and never refuses. */
    private static PolicyMode mode(JsonNode entry, String at) {
        return parsed(at, "mode", () -> PolicyMode.parse(optional(entry, "mode", "enforce")));
    }

    /** The scope, counting only authenticated or only unauthenticated requests when asked. */
    private static Scope restricted(Scope scope, String at, String appliesTo) {
        Function<RequestFacts, @Nullable String> key = switch (appliesTo) {
            case "all" -> null;
            case "authenticated" -> facts -> facts.accountId() == null ? null : scope.keyFor(facts);
            case "unauthenticated" -> facts -> facts.accountId() != null ? null : scope.keyFor(facts);
            default ->
                throw new ConfigException(
                        at + ".applies_to",
                        at + ".applies_to must be all, authenticated" + " or unauthenticated, was '" + appliesTo + "'");
        };
        return key == null ? scope : Scope.custom(scope.id(), key);
    }

    private interface Parse<T> {
        T get();
    }

    private static <T> T parsed(String at, String field, Parse<T> parse) {
        try {
            return parse.get();
        } catch (IllegalArgumentException e) {
            throw new ConfigException(at + "." + field, at + "." + field + " " + e.getMessage());
        }
    }

    private static String required(JsonNode entry, String at, String field) {
        JsonNode n = entry.get(field);
        if (n == null || n.isNull() || !n.isValueNode() || n.asText().isBlank()) {
            throw new ConfigException(at + "." + field, at + "." + field + " is required");
        }
        return n.asText().trim();
    }

    private static String optional(JsonNode entry, String field, String fallback) {
        JsonNode n = entry.get(field);
        return n == null || n.isNull() ? fallback : n.asText().trim();
    }

    private static long number(JsonNode entry, String at, String field, long fallback) {
        JsonNode n = entry.get(field);
        if (n == null || n.isNull()) {
            if (fallback < 0) {
                throw new ConfigException(at + "." + field, at + "." + field + " is required");
            }
            return fallback;
        }
        if (n.isIntegralNumber() && n.canConvertToLong()) {
            return n.longValue();
        }
        throw new ConfigException(
                at + "." + field, at + "." + field + " must be a whole number, was '" + n.asText() + "'");
    }
}
