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
        List<ConcurrencyPolicy> concurrencyPolicies) {

    /** Settings without concurrency limits. */
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
                List.of());
    }

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
        trustedProxies = List.copyOf(trustedProxies);
        try {
            TrustedProxies.of(trustedProxies);
        } catch (IllegalArgumentException e) {
            throw new ConfigException("rate_limits.trusted_proxies", "rate_limits.trusted_proxies: " + e.getMessage());
        }
    }

    /** The same limits, switched off (tests and benchmarks that are not about limits). */
    public RateLimitConfig disabled() {
        return new RateLimitConfig(
                false,
                store,
                policies,
                plans,
                retryAfterJitter,
                redisTimeout,
                redisKeyPrefix,
                redisDirectConnection,
                trustedProxies,
                concurrencyPolicies);
    }

    /** The same settings with other policies. */
    public RateLimitConfig withPolicies(List<Policy> newPolicies) {
        return new RateLimitConfig(
                true,
                store,
                newPolicies,
                plans,
                retryAfterJitter,
                redisTimeout,
                redisKeyPrefix,
                redisDirectConnection,
                trustedProxies,
                concurrencyPolicies);
    }

    /** The same settings with another store. */
    public RateLimitConfig withStore(Store newStore) {
        return new RateLimitConfig(
                enabled,
                newStore,
                policies,
                plans,
                retryAfterJitter,
                redisTimeout,
                redisKeyPrefix,
                redisDirectConnection,
                trustedProxies,
                concurrencyPolicies);
    }

    /** The same limits, waiting at most {@code timeout} for Redis. */
    public RateLimitConfig withRedisTimeout(Duration timeout) {
        return new RateLimitConfig(
                enabled,
                store,
                policies,
                plans,
                retryAfterJitter,
                timeout,
                redisKeyPrefix,
                redisDirectConnection,
                trustedProxies,
                concurrencyPolicies);
    }

    /** The same limits with these trusted proxies. */
    public RateLimitConfig withTrustedProxies(List<String> newTrustedProxies) {
        return new RateLimitConfig(
                enabled,
                store,
                policies,
                plans,
                retryAfterJitter,
                redisTimeout,
                redisKeyPrefix,
                redisDirectConnection,
                newTrustedProxies,
                concurrencyPolicies);
    }

    /** The same settings with these concurrency limits. */
    public RateLimitConfig withConcurrencyPolicies(List<ConcurrencyPolicy> newConcurrencyPolicies) {
        return new RateLimitConfig(
                true,
                store,
                policies,
                plans,
                retryAfterJitter,
                redisTimeout,
                redisKeyPrefix,
                redisDirectConnection,
                trustedProxies,
                newConcurrencyPolicies);
    }
}
