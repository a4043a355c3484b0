package dev.retrysafe.ratelimit;

import java.time.Duration;
import java.util.Objects;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * One rate limit: {@code quota} units per {@code window} for each key of {@code scope}, counted
 * by {@code algorithm}, with room for bursts of up to {@code burst} units (GCRA and token
 * bucket; the windowed algorithms ignore it). A request spends {@code cost} units times its
 * route's cost. A policy with a {@code routeGroup} applies only to requests in that group.
 * Immutable and threadsafe.
 *
 * @param name       shown to clients in headers and problem bodies; letters, digits, {@code _-.}
 * @param scope      whose budget a request spends
 * @param algorithm  how it counts
 * @param quota      units per window, at least 1
 * @param window     at least one millisecond, whole microseconds
 * @param burst      the most units available at once; {@code quota} unless set
 * @param cost       units per request (before the route's own cost), at least 1
 * @param failMode   what happens when the counter store cannot be reached
 * @param routeGroup the only route group this policy applies to, or {@code null} for all
 * @param mode       whether its refusals are answered or only counted ({@link PolicyMode#SHADOW})
 */
public record Policy(
        String name,
        Scope scope,
        Algorithm algorithm,
        long quota,
        Duration window,
        long burst,
        long cost,
        FailMode failMode,
        @Nullable String routeGroup,
        PolicyMode mode) {

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_.-]{1,64}");

    /**
     * The largest {@code quota * window-in-microseconds} (and {@code burst * window}) a policy
     * may have, so that every store's arithmetic, sums included, stays exact in the 53-bit
     * mantissa of a double (Redis's Lua numbers). 2^50 microsecond-units allow, for example,
     * 1,000,000 per 13 days.
     */
    public static final long MAX_UNIT_MICROS = 1L << 50;

    public Policy {
        Objects.requireNonNull(scope, "scope");
        Objects.requireNonNull(algorithm, "algorithm");
        Objects.requireNonNull(window, "window");
        Objects.requireNonNull(failMode, "failMode");
        Objects.requireNonNull(mode, "mode");
        if (!NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("policy name must be 1-64 letters, digits, '_', '-' or '.': " + name);
        }
        if (quota < 1) {
            throw new IllegalArgumentException("quota of policy " + name + " must be at least 1: " + quota);
        }
        if (window.compareTo(Duration.ofMillis(1)) < 0 || window.toNanos() % 1000 != 0) {
            throw new IllegalArgumentException(
                    "window of policy " + name + " must be at least 1ms and whole microseconds: " + window);
        }
        if (burst < 1) {
            throw new IllegalArgumentException("burst of policy " + name + " must be at least 1: " + burst);
        }
        if (cost < 1) {
            throw new IllegalArgumentException("cost of policy " + name + " must be at least 1: " + cost);
        }
        long windowMicros = window.toNanos() / 1000;
        if (Math.max(quota, burst) > MAX_UNIT_MICROS / windowMicros) {
            throw new IllegalArgumentException("policy " + name + ": quota or burst times the window in"
                    + " microseconds must stay below 2^50 (" + quota + " per " + window + ")");
        }
        if (routeGroup != null && routeGroup.isBlank()) {
            throw new IllegalArgumentException("route group of policy " + name + " must not be blank");
        }
    }

    /** An enforced policy: what every policy was before {@link PolicyMode} existed. */
    public Policy(
            String name,
            Scope scope,
            Algorithm algorithm,
            long quota,
            Duration window,
            long burst,
            long cost,
            FailMode failMode,
            @Nullable String routeGroup) {
        this(name, scope, algorithm, quota, window, burst, cost, failMode, routeGroup, PolicyMode.ENFORCE);
    }

    /** Whether this policy only counts what it would refuse ({@link PolicyMode#SHADOW}). */
    public boolean shadow() {
        return mode == PolicyMode.SHADOW;
    }

    /** The window in microseconds. */
    public long windowMicros() {
        return window.toNanos() / 1000;
    }

    /** Whether this policy counts {@code facts}: its route group matches and its scope has a key. */
    public boolean appliesTo(RequestFacts facts) {
        return (routeGroup == null || routeGroup.equals(facts.routeGroup())) && scope.keyFor(facts) != null;
    }

    /**
     * This policy with quota and burst multiplied by {@code factor} (rounded, at least 1): how
     * plans scale limits.
     */
    public Policy scaledBy(double factor) {
        if (!(factor > 0) || Double.isInfinite(factor)) {
            throw new IllegalArgumentException("scale factor must be positive: " + factor);
        }
        if (factor == 1.0) {
            return this;
        }
        return new Policy(
                name,
                scope,
                algorithm,
                Math.max(1, Math.round(quota * factor)),
                window,
                Math.max(1, Math.round(burst * factor)),
                cost,
                failMode,
                routeGroup,
                mode);
    }

    /**
     * This policy with its quota and burst divided by {@code shares} (rounded down, at least 1):
     * what one of {@code shares} instances enforces on its own while the shared store is
     * unreachable ({@link FailMode#LOCAL}). Rounding down keeps the shares' sum within the quota.
     */
    public Policy sharedBy(int shares) {
        if (shares < 1) {
            throw new IllegalArgumentException("shares must be at least 1: " + shares);
        }
        if (shares == 1) {
            return this;
        }
        return new Policy(
                name,
                scope,
                algorithm,
                Math.max(1, quota / shares),
                window,
                Math.max(1, burst / shares),
                cost,
                failMode,
                routeGroup,
                mode);
    }

    /**
     * A builder for a policy named {@code name}: GCRA, scope {@code api_key}, cost 1, fail open,
     * enforced.
     */
    public static Builder builder(String name) {
        return new Builder(name);
    }

    /** Builds a {@link Policy}. Not threadsafe. */
    public static final class Builder {
        private final String name;
        private Scope scope = Scope.apiKey();
        private Algorithm algorithm = Algorithm.GCRA;
        private long quota = -1;
        private @Nullable Duration window;
        private long burst = -1;
        private long cost = 1;
        private FailMode failMode = FailMode.OPEN;
        private @Nullable String routeGroup;
        private PolicyMode mode = PolicyMode.ENFORCE;

        private Builder(String name) {
            this.name = name;
        }

        public Builder scope(Scope scope) {
            this.scope = scope;
            return this;
        }

        public Builder algorithm(Algorithm algorithm) {
            this.algorithm = algorithm;
            return this;
        }

        /** {@code quota} units per {@code window}. */
        public Builder limit(long quota, Duration window) {
            this.quota = quota;
            this.window = window;
            return this;
        }

        public Builder burst(long burst) {
            this.burst = burst;
            return this;
        }

        public Builder cost(long cost) {
            this.cost = cost;
            return this;
        }

        public Builder failMode(FailMode failMode) {
            this.failMode = failMode;
            return this;
        }

        public Builder routeGroup(@Nullable String routeGroup) {
            this.routeGroup = routeGroup;
            return this;
        }

        /** {@link PolicyMode#SHADOW} to count refusals without answering them; enforced by default. */
        public Builder mode(PolicyMode mode) {
            this.mode = mode;
            return this;
        }

        public Policy build() {
            if (window == null) {
                throw new IllegalStateException("policy " + name + " needs limit(quota, window)");
            }
            return new Policy(
                    name,
                    scope,
                    algorithm,
                    quota,
                    window,
                    burst == -1 ? quota : burst,
                    cost,
                    failMode,
                    routeGroup,
                    mode);
        }
    }
}
