package dev.retrysafe.spring.autoconfigure;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;

/** Rate limits on @RateLimited controller methods (retrysafe.rate-limits.*). */
@ConfigurationProperties("retrysafe.rate-limits")
public class RetrysafeRateLimitProperties {

    /** Whether @RateLimited methods are limited (and carry the budget headers). */
    private boolean enabled = true;

    /** Where the counters live: memory (this instance) or redis (shared by every instance). */
    private Store store = Store.MEMORY;

    /** Up to this much extra, at random, on a 429's Retry-After (whole seconds). */
    private Duration retryAfterJitter = Duration.ZERO;

    /** Prefix of the type URI of the 429 and 503 problems. */
    private String problemTypeBase = "/problems/";

    /** The Redis the counters live in when store is redis. */
    private final Redis redis = new Redis();

    /** The policies by name, which @RateLimited names; the fields of the server's rate_limits.policies. */
    private Map<String, Policy> policies = new LinkedHashMap<>();

    /** Where rate-limit counters live. */
    public enum Store {
        /** In this instance's memory. */
        MEMORY,
        /** In Redis, shared by every instance. */
        REDIS
    }

    /** Redis settings of the rate-limit store. */
    public static class Redis {

        /** A Redis of the store's own: redis://[user:password@]host[:port][/db] or rediss://. Empty: the application's Spring Data Redis (spring.data.redis.*) through its Lettuce connection factory. */
        private @Nullable String url;

        /** What every counter key starts with; deployments sharing one Redis need their own. */
        private String keyPrefix = "retrysafe:rl:";

        /** How long a decision waits for Redis before its policies fail open, closed or local. */
        private Duration timeout = Duration.ofMillis(100);

        /**
         * How many instances share a fail-local policy's quota while Redis cannot be reached: each
         * enforces quota / fallback-instances (rounded down, at least 1) in its own memory.
         */
        private int fallbackInstances = 1;

        public int getFallbackInstances() {
            return fallbackInstances;
        }

        public void setFallbackInstances(int fallbackInstances) {
            this.fallbackInstances = fallbackInstances;
        }

        public @Nullable String getUrl() {
            return url;
        }

        public void setUrl(@Nullable String url) {
            this.url = url;
        }

        public String getKeyPrefix() {
            return keyPrefix;
        }

        public void setKeyPrefix(String keyPrefix) {
            this.keyPrefix = keyPrefix;
        }

        public Duration getTimeout() {
            return timeout;
        }

        public void setTimeout(Duration timeout) {
            this.timeout = timeout;
        }
    }

    /** One policy: quota units per window for each key of its scope. */
    public static class Policy {

        /** Whose budget a request spends: api_key (counted per caller here), account, ip or account+route_group (per caller and mapping pattern). */
        private String scope = "account";

        /** How it counts: gcra, token_bucket, sliding_window or fixed_window. */
        private String algorithm = "gcra";

        /** Units per window (at least 1). */
        private long quota;

        /** The window (at least 1ms). */
        private @Nullable Duration window;

        /** Most units at once for gcra and token_bucket (default: the quota). */
        private @Nullable Long burst;

        /** Units per request. */
        private long cost = 1;

        /**
         * What happens when the counters cannot be reached: open lets requests through, closed
         * answers 503, local counts this instance's share in memory (see redis.fallback-instances).
         */
        private String fail = "open";

        /** enforce, or shadow: count and log would-be refusals, refuse nothing, show no headers. */
        private String mode = "enforce";

        public String getMode() {
            return mode;
        }

        public void setMode(String mode) {
            this.mode = mode;
        }

        /** Which requests it counts: all, authenticated (with a caller) or unauthenticated. */
        private String appliesTo = "all";

        public String getScope() {
            return scope;
        }

        public void setScope(String scope) {
            this.scope = scope;
        }

        public String getAlgorithm() {
            return algorithm;
        }

        public void setAlgorithm(String algorithm) {
            this.algorithm = algorithm;
        }

        public long getQuota() {
            return quota;
        }

        public void setQuota(long quota) {
            this.quota = quota;
        }

        public @Nullable Duration getWindow() {
            return window;
        }

        public void setWindow(@Nullable Duration window) {
            this.window = window;
        }

        public @Nullable Long getBurst() {
            return burst;
        }

        public void setBurst(@Nullable Long burst) {
            this.burst = burst;
        }

        public long getCost() {
            return cost;
        }

        public void setCost(long cost) {
            this.cost = cost;
        }

        public String getFail() {
            return fail;
        }

        public void setFail(String fail) {
            this.fail = fail;
        }

        public String getAppliesTo() {
            return appliesTo;
        }

        public void setAppliesTo(String appliesTo) {
            this.appliesTo = appliesTo;
        }
    }

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public Store getStore() {
        return store;
    }

    public void setStore(Store store) {
        this.store = store;
    }

    public Duration getRetryAfterJitter() {
        return retryAfterJitter;
    }

    public void setRetryAfterJitter(Duration retryAfterJitter) {
        this.retryAfterJitter = retryAfterJitter;
    }

    public String getProblemTypeBase() {
        return problemTypeBase;
    }

    public void setProblemTypeBase(String problemTypeBase) {
        this.problemTypeBase = problemTypeBase;
    }

    public Redis getRedis() {
        return redis;
    }

    public Map<String, Policy> getPolicies() {
        return policies;
    }

    public void setPolicies(Map<String, Policy> policies) {
        this.policies = policies;
    }
}
