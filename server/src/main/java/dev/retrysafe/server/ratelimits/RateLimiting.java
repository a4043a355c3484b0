package dev.retrysafe.server.ratelimits;

import dev.retrysafe.ratelimit.ConcurrencyStore;
import dev.retrysafe.ratelimit.FailMode;
import dev.retrysafe.ratelimit.InMemoryConcurrencyStore;
import dev.retrysafe.ratelimit.InMemoryRateLimitStore;
import dev.retrysafe.ratelimit.Plans;
import dev.retrysafe.ratelimit.PolicyVersions;
import dev.retrysafe.ratelimit.RateLimitStore;
import dev.retrysafe.ratelimit.redis.RedisConcurrencyStore;
import dev.retrysafe.ratelimit.redis.RedisRateLimitStore;
import dev.retrysafe.server.config.RateLimitConfig;
import dev.retrysafe.server.config.ServerConfig;
import dev.retrysafe.servlet.DecisionListener;
import dev.retrysafe.servlet.RateLimitFilter;
import java.net.URI;
import java.time.Clock;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Builds the rate-limit filter and its store from the configuration. */
public final class RateLimiting {

    private static final Logger LOG = LoggerFactory.getLogger(RateLimiting.class);

    private RateLimiting() {}

    /**
     * The filter as configured, or {@code null} when rate limits are off. Its store is added to
     * {@code resources} (closed with the server); {@code decisions} hears every decision. Every request is charged as it arrives; the
     * idempotency filter refunds replays and {@code 409}s.
     */
    public static @Nullable RateLimitFilter filter(
            ServerConfig config, Clock clock, List<AutoCloseable> resources, DecisionListener decisions) {
        return filter(config, clock, resources, decisions, new RedisStoreMetricsText());
    }

    /** As above, with {@code storeMetrics} attached to the store (its {@code /metrics} section). */
    public static @Nullable RateLimitFilter filter(
            ServerConfig config,
            Clock clock,
            List<AutoCloseable> resources,
            DecisionListener decisions,
            RedisStoreMetricsText storeMetrics) {
        RateLimitConfig limits = config.rateLimits();
        if (!limits.enabled()) {
            LOG.warn("rate_limits.enabled is false: no request is limited");
            return null;
        }
        RateLimitStore store = store(config, clock);
        resources.add(store);
        storeMetrics.attach(store);
        RateLimitFilter.Builder filter = RateLimitFilter.builder()
                .store(DecisionListener.counting(store, decisions))
                .facts(CallerFacts::of)
                .exempt(CallerFacts::isBudgetReport)
                .retryAfterJitter(limits.retryAfterJitter())
                .problemTypeBase("/problems/")
                .plans(plans(limits));
        PolicyVersions versions = versions(limits, clock);
        if (versions != null) {
            filter.versions(versions);
        } else {
            filter.policies(limits.policies());
        }
        concurrency(config, filter, resources, decisions);
        return filter.build();
    }

    /**
     * The configured policy sets on {@code clock}, or {@code null} when limits are unversioned
     * (or off).
     */
    public static @Nullable PolicyVersions versions(RateLimitConfig limits, Clock clock) {
        return limits.enabled() && limits.versions().enabled()
                ? limits.versions().build(limits.policies(), clock)
                : null;
    }

    /**
     * The {@code kind: concurrency} policies, counted where the rate-limit counters are (Redis,
     * under the same key prefix, or this instance's memory); no store at all without them.
     */
    private static void concurrency(
            ServerConfig config,
            RateLimitFilter.Builder filter,
            List<AutoCloseable> resources,
            DecisionListener decisions) {
        RateLimitConfig limits = config.rateLimits();
        if (limits.concurrencyPolicies().isEmpty()) {
            return;
        }
        ConcurrencyStore store;
        if (sharedInRedis(config)) {
            RedisConcurrencyStore.Builder redis = RedisConcurrencyStore.builder();
            if (config.redis().cluster()) {
                redis.redisCluster(
                        config.redis().nodes().stream().map(URI::toString).toList());
            } else {
                redis.redisUri(
                        java.util.Objects.requireNonNull(config.redis().url()).toString());
            }
            store = redis.commandTimeout(limits.redisTimeout())
                    .keyPrefix(limits.redisKeyPrefix())
                    .build();
            LOG.info("concurrency limits in Redis (exact across instances): {}", describe(limits));
        } else {
            store = InMemoryConcurrencyStore.create();
            LOG.info("concurrency limits in memory (this instance only): {}", describe(limits));
        }
        resources.add(store);
        filter.concurrencyStore(DecisionListener.counting(store, decisions))
                .concurrencyPolicies(limits.concurrencyPolicies());
    }

    private static String describe(RateLimitConfig limits) {
        return limits.concurrencyPolicies().stream()
                .map(p -> p.name() + " " + p.limit() + " per " + p.scope().id() + " (lease "
                        + p.lease().toSeconds() + " s)")
                .collect(java.util.stream.Collectors.joining(", "));
    }

    private static boolean sharedInRedis(ServerConfig config) {
        RateLimitConfig limits = config.rateLimits();
        boolean redis = limits.store() == RateLimitConfig.Store.REDIS
                || limits.store() == RateLimitConfig.Store.AUTO
                        && config.redis().configured();
        return redis && config.redis().url() != null;
    }

    /** The configured plans; an account on an unlisted plan gets {@code free}'s quotas. */
    static Plans plans(RateLimitConfig limits) {
        Plans.Builder plans = Plans.builder();
        limits.plans().forEach(plans::plan);
        return plans.defaultPlan(
                        limits.plans().containsKey("free")
                                ? "free"
                                : limits.plans().keySet().iterator().next())
                .build();
    }

    private static RateLimitStore store(ServerConfig config, Clock clock) {
        RateLimitConfig limits = config.rateLimits();
        boolean redis = limits.store() == RateLimitConfig.Store.REDIS
                || limits.store() == RateLimitConfig.Store.AUTO
                        && config.redis().configured();
        if (redis && config.redis().url() != null) {
            RedisRateLimitStore.Builder store = RedisRateLimitStore.builder();
            if (config.redis().cluster()) {
                LOG.info(
                        "rate-limit counters in Redis Cluster (shared by every instance, {} seed nodes), timeout {} ms",
                        config.redis().nodes().size(),
                        limits.redisTimeout().toMillis());
                store.redisCluster(
                        config.redis().nodes().stream().map(URI::toString).toList());
            } else {
                LOG.info(
                        "rate-limit counters in Redis (shared by every instance), timeout {} ms",
                        limits.redisTimeout().toMillis());
                store.redisUri(config.redis().url().toString());
                store.directConnection(limits.redisDirectConnection());
            }
            return store.commandTimeout(limits.redisTimeout())
                    .keyPrefix(limits.redisKeyPrefix())
                    .fallbackInstances(limits.fallbackInstances())
                    .build();
        }
        LOG.info("rate-limit counters in memory (this instance only)");
        if (limits.policies().stream().anyMatch(p -> p.failMode() == FailMode.LOCAL)) {
            LOG.info("fail: local acts as fail: open with counters in memory (they never become unreachable);"
                    + " rate_limits.fallback_instances applies only to Redis");
        }
        return InMemoryRateLimitStore.builder().clock(clock).build();
    }
}
