package dev.retrysafe.server.config;

import dev.retrysafe.ratelimit.ConcurrencyPolicy;
import dev.retrysafe.ratelimit.Policy;
import dev.retrysafe.servlet.TrustedProxies;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Rate limits ({@code rate_limits} in the YAML file).
 *
 * @param enabled          {@code false} turns every limit off (no headers either)
 * @param store            where counters live
 * @param policies         every policy, in the order they are checked and shown
 * @param plans            plan name to the factor its quotas are multiplied by
 * @param retryAfterJitter the most extra time added at random to a {@code 429}'s
 *                         {@code Retry-After}, so refused clients do not all return together
 * @param redisTimeout     how long a decision may wait for Redis before its policies fail open or
 *                         closed
 * @param redisKeyPrefix   what every counter key in Redis starts with, so that deployments
 *                         sharing one Redis keep apart
 * @param redisDirectConnection whether a decision that goes alone may use the store's own plain
 *                         connection to a standalone Redis instead of Lettuce's (faster; see
 *                         docs/rate-limits.md); {@code false}: every decision through Lettuce
 * @param trustedProxies   load balancers (CIDR blocks) whose {@code X-Forwarded-For} names the client
 * @param versions         the current set's name and docs and the previous sets
 *                         ({@code version}, {@code docs_url}, {@code previous},
 *                         {@code allow_short_notice}); {@link RateLimitVersions#NONE}: unversioned
 * @param fallbackInstances how many instances share a {@code fail: local} policy's quota while
 *                         Redis is unreachable (each enforces {@code quota / fallbackInstances})
 * @param concurrencyPolicies the {@code kind: concurrency} entries of {@code rate_limits.policies}:
 *                         requests in flight at once, in the same store as the counters
 */
public record RateLimitConfig(
        boolean enabled,
        Store store,
        List<Policy> policies,
        Map<String, Double> plans,
        Duration retryAfterJitter,
        Duration redisTimeout,
        String redisKeyPrefix,
        boolean redisDirectConnection,
        List<String> trustedProxies,
        RateLimitVersions versions,
        int fallbackInstances,
        List<ConcurrencyPolicy> concurrencyPolicies) {

    /** The most instances {@code fallback_instances} may name. */
    public static final int MAX_FALLBACK_INSTANCES = 1000;

    /** Where counters live. */
    public enum Store {
        /** Redis when {@code redis.url} is set, otherwise memory. */
        AUTO,
        /** This process only: every instance counts on its own. */
        MEMORY,
        /** Shared by every instance; needs {@code redis.url}. */
        REDIS
    }

    /** Checks every value and copies the collections. */
    public RateLimitConfig {
        policies = List.copyOf(policies);
        plans = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(plans));
        java.util.Set<String> names = new java.util.HashSet<>();
        for (Policy policy : policies) {
            ConfigException.check(
                    names.add(policy.name()),
                    "rate_limits.policies",
                    "policy names must be unique, '" + policy.name() + "' is used twice");
        }
        for (Map.Entry<String, Double> plan : plans.entrySet()) {
            ConfigException.check(
                    plan.getValue() > 0 && plan.getValue() <= 1_000_000,
                    "rate_limits.plans." + plan.getKey(),
                    "must be a factor above 0 and at most 1000000, was " + plan.getValue());
        }
        ConfigException.check(
                !retryAfterJitter.isNegative() && retryAfterJitter.compareTo(Duration.ofMinutes(1)) <= 0,
                "rate_limits.retry_after_jitter",
                "must be between 0s and 1m, was " + Durations.format(retryAfterJitter));
        // Retry-After counts whole seconds: 1500ms would silently act as 1s, 500ms as no jitter
        ConfigException.check(
                retryAfterJitter.toMillisPart() == 0 && retryAfterJitter.toNanosPart() == 0,
                "rate_limits.retry_after_jitter",
                "must be whole seconds (Retry-After counts seconds), was " + Durations.format(retryAfterJitter));
        ConfigException.check(
                redisTimeout.compareTo(Duration.ofMillis(1)) >= 0
                        && redisTimeout.compareTo(Duration.ofSeconds(10)) <= 0,
                "rate_limits.redis_timeout",
                "must be between 1ms and 10s, was " + Durations.format(redisTimeout));
        ConfigException.check(
                redisKeyPrefix.matches("[A-Za-z0-9_.:-]{1,64}"),
                "rate_limits.redis_key_prefix",
                "must be 1..64 characters of A-Z a-z 0-9 _ . : -, was '" + redisKeyPrefix + "'");
        concurrencyPolicies = List.copyOf(concurrencyPolicies);
        for (ConcurrencyPolicy policy : concurrencyPolicies) {
            ConfigException.check(
                    names.add(policy.name()),
                    "rate_limits.policies",
                    "policy names must be unique, '" + policy.name() + "' is used twice");
        }
        ConfigException.check(
                fallbackInstances >= 1 && fallbackInstances <= MAX_FALLBACK_INSTANCES,
                "rate_limits.fallback_instances",
                "must be a whole number from 1 to " + MAX_FALLBACK_INSTANCES + ", was " + fallbackInstances);
        trustedProxies = List.copyOf(trustedProxies);
        try {
            TrustedProxies.of(trustedProxies);
        } catch (IllegalArgumentException e) {
            throw new ConfigException("rate_limits.trusted_proxies", "rate_limits.trusted_proxies: " + e.getMessage());
        }
    }

    /**
     * Unversioned limits ({@link RateLimitVersions#NONE}), a fail-local policy's whole quota for
     * one instance, no concurrency limits: the settings as they were before versions, local
     * fallbacks and concurrency limits existed.
     */
    public RateLimitConfig(
            boolean enabled,
            Store store,
            List<Policy> policies,
            Map<String, Double> plans,
            Duration retryAfterJitter,
            Duration redisTimeout,
            String redisKeyPrefix,
            boolean redisDirectConnection,
            List<String> trustedProxies) {
        this(
                enabled,
                store,
                policies,
                plans,
                retryAfterJitter,
                redisTimeout,
                redisKeyPrefix,
                redisDirectConnection,
                trustedProxies,
                RateLimitVersions.NONE,
                1,
                List.of());
    }

    /** The same limits, switched off (tests and benchmarks that are not about limits). */
    public RateLimitConfig disabled() {
        return edit(e -> e.enabled = false);
    }

    /** The same settings, on, with other policies. */
    public RateLimitConfig withPolicies(List<Policy> newPolicies) {
        return edit(e -> {
            e.enabled = true;
            e.policies = newPolicies;
        });
    }

    /** The same settings with another store. */
    public RateLimitConfig withStore(Store newStore) {
        return edit(e -> e.store = newStore);
    }

    /** The same limits, waiting at most {@code timeout} for Redis. */
    public RateLimitConfig withRedisTimeout(Duration timeout) {
        return edit(e -> e.redisTimeout = timeout);
    }

    /** The same limits with these versions (their current set's policies are {@link #policies()}). */
    public RateLimitConfig withVersions(RateLimitVersions newVersions) {
        return edit(e -> e.versions = newVersions);
    }

    /** The same limits with these trusted proxies. */
    public RateLimitConfig withTrustedProxies(List<String> newTrustedProxies) {
        return edit(e -> e.trustedProxies = newTrustedProxies);
    }

    /** The same limits, a fail-local policy's quota shared by {@code instances} while Redis is unreachable. */
    public RateLimitConfig withFallbackInstances(int instances) {
        return edit(e -> e.fallbackInstances = instances);
    }

    /** The same settings with these concurrency limits. */
    public RateLimitConfig withConcurrencyPolicies(List<ConcurrencyPolicy> newConcurrencyPolicies) {
        return edit(e -> e.concurrencyPolicies = newConcurrencyPolicies);
    }

    /**
     * These settings with {@code fresh}'s on/off, policies, plans, versions and concurrency limits: what a reload
     * changes; the store and its settings stay as they were.
     */
    public RateLimitConfig withPoliciesOf(RateLimitConfig fresh) {
        return edit(e -> {
            e.enabled = fresh.enabled;
            e.policies = fresh.policies;
            e.plans = fresh.plans;
            e.versions = fresh.versions;
            e.concurrencyPolicies = fresh.concurrencyPolicies;
        });
    }

    /** A copy with what {@code change} sets, checked as any other: one place lists the components. */
    private RateLimitConfig edit(java.util.function.Consumer<Edit> change) {
        Edit e = new Edit(this);
        change.accept(e);
        return new RateLimitConfig(
                e.enabled,
                e.store,
                e.policies,
                e.plans,
                e.retryAfterJitter,
                e.redisTimeout,
                e.redisKeyPrefix,
                e.redisDirectConnection,
                e.trustedProxies,
                e.versions,
                e.fallbackInstances,
                e.concurrencyPolicies);
    }

    /** The components of one copy being made. Not threadsafe; used by one {@link #edit}. */
    private static final class Edit {
        boolean enabled;
        Store store;
        List<Policy> policies;
        Map<String, Double> plans;
        Duration retryAfterJitter;
        Duration redisTimeout;
        String redisKeyPrefix;
        boolean redisDirectConnection;
        List<String> trustedProxies;
        RateLimitVersions versions;
        int fallbackInstances;
        List<ConcurrencyPolicy> concurrencyPolicies;

        Edit(RateLimitConfig c) {
            enabled = c.enabled;
            store = c.store;
            policies = c.policies;
            plans = c.plans;
            retryAfterJitter = c.retryAfterJitter;
            redisTimeout = c.redisTimeout;
            redisKeyPrefix = c.redisKeyPrefix;
            redisDirectConnection = c.redisDirectConnection;
            trustedProxies = c.trustedProxies;
            versions = c.versions;
            fallbackInstances = c.fallbackInstances;
            concurrencyPolicies = c.concurrencyPolicies;
        }
    }
}
