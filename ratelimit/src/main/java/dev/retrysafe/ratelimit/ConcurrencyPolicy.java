package dev.retrysafe.ratelimit;

import java.time.Duration;
import java.util.Objects;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * A concurrency limit: at most {@code limit} requests in flight at once for each key of
 * {@code scope}, counted from the moment a request is admitted until it ends in any way. A rate
 * {@link Policy} counts requests over time; this counts the requests running now, so that a
 * caller with many slow requests cannot hold more than its share of the server. Each slot a
 * request holds is a lease of {@code lease}: a shared store renews it while the request runs and
 * forgets it once it has not been renewed for that long, so the slots of an instance that died
 * come back within {@code lease} (see {@code docs/rate-limits.md}, "Concurrency limits").
 * Immutable and threadsafe.
 *
 * @param name       shown to clients in problem bodies; letters, digits, {@code _-.}
 * @param scope      whose requests are counted together
 * @param limit      requests in flight at once per key, at least 1
 * @param lease      how long a slot outlives its last renewal, 1 s to 1 h
 * @param failMode   what happens when the store cannot be reached
 * @param routeGroup the only route group this limit applies to, or {@code null} for all
 */
public record ConcurrencyPolicy(
        String name,
        Scope scope,
        int limit,
        Duration lease,
        FailMode failMode,
        @Nullable String routeGroup) {

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_.-]{1,64}");

    /** The lease unless configured: long enough for a slow Redis, short enough for a crash. */
    public static final Duration DEFAULT_LEASE = Duration.ofSeconds(10);

    public ConcurrencyPolicy {
        Objects.requireNonNull(scope, "scope");
        Objects.requireNonNull(lease, "lease");
        Objects.requireNonNull(failMode, "failMode");
        if (!NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("policy name must be 1-64 letters, digits, '_', '-' or '.': " + name);
        }
        if (limit < 1) {
            throw new IllegalArgumentException("limit of policy " + name + " must be at least 1: " + limit);
        }
        if (lease.compareTo(Duration.ofSeconds(1)) < 0
                || lease.compareTo(Duration.ofHours(1)) > 0
                || lease.toNanosPart() % 1_000_000 != 0) {
            throw new IllegalArgumentException(
                    "lease of policy " + name + " must be 1s to 1h in whole milliseconds: " + lease);
        }
        if (routeGroup != null && routeGroup.isBlank()) {
            throw new IllegalArgumentException("route group of policy " + name + " must not be blank");
        }
    }

    /** Whether this limit counts {@code facts}: its route group matches and its scope has a key. */
    public boolean appliesTo(RequestFacts facts) {
        return (routeGroup == null || routeGroup.equals(facts.routeGroup())) && scope.keyFor(facts) != null;
    }

    /** The slot {@code facts} would take under this limit, or {@code null} when it does not apply. */
    public @Nullable ConcurrencySlot slotFor(RequestFacts facts) {
        if (routeGroup != null && !routeGroup.equals(facts.routeGroup())) {
            return null;
        }
        String key = scope.keyFor(facts);
        return key == null ? null : new ConcurrencySlot(this, key);
    }

    /** A builder for a limit named {@code name}: scope {@code api_key}, the default lease, fail open. */
    public static Builder builder(String name) {
        return new Builder(name);
    }

    /** Builds a {@link ConcurrencyPolicy}. Not threadsafe. */
    public static final class Builder {
        private final String name;
        private Scope scope = Scope.apiKey();
        private int limit = -1;
        private Duration lease = DEFAULT_LEASE;
        private FailMode failMode = FailMode.OPEN;
        private @Nullable String routeGroup;

        private Builder(String name) {
            this.name = name;
        }

        public Builder scope(Scope scope) {
            this.scope = scope;
            return this;
        }

        /** At most {@code limit} requests in flight per key (required). */
        public Builder limit(int limit) {
            this.limit = limit;
            return this;
        }

        public Builder lease(Duration lease) {
            this.lease = lease;
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

        public ConcurrencyPolicy build() {
            return new ConcurrencyPolicy(name, scope, limit, lease, failMode, routeGroup);
        }
    }
}
