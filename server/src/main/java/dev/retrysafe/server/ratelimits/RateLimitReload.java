package dev.retrysafe.server.ratelimits;

import dev.retrysafe.ratelimit.Policy;
import dev.retrysafe.ratelimit.PolicyVersions;
import dev.retrysafe.server.config.ConfigException;
import dev.retrysafe.server.config.RateLimitConfig;
import dev.retrysafe.server.db.Transactions;
import dev.retrysafe.servlet.RateLimitFilter;
import java.sql.SQLException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Applies the rate limits of a configuration read again (on {@code SIGHUP}) to the running
 * filter: every policy, versioned set and plan swaps at once, between two requests; the counters
 * of a policy whose name and algorithm stay carry on. What only a restart can change (the store,
 * Redis settings, trusted proxies, the jitter, turning limits on when they were off at start) is
 * named in the answer and left as it was. A configuration the 90-day rule refuses changes nothing.
 * Threadsafe: reloads take turns.
 */
public final class RateLimitReload {

    /** What a reload did, in one line for the log. */
    public record Outcome(boolean applied, String message) {}

    private final @Nullable RateLimitFilter filter;
    private final Transactions transactions;
    private final Clock clock;
    private RateLimitConfig current;
    /** Whether the filter counts concurrency limits (it has their store only when some were set at start). */
    private final boolean countsConcurrency;

    /**
     * @param filter the running filter, {@code null} when rate limits were off at start
     * @param started the rate limits it started with
     */
    public RateLimitReload(
            @Nullable RateLimitFilter filter, RateLimitConfig started, Transactions transactions, Clock clock) {
        this.filter = filter;
        this.current = started;
        this.countsConcurrency = !started.concurrencyPolicies().isEmpty();
        this.transactions = transactions;
        this.clock = clock;
    }

    /**
     * Applies {@code fresh}, or refuses it and changes nothing.
     *
     * @throws ConfigException when the 90-day rule refuses it (the message names the policy and date)
     * @throws SQLException    when the 90-day rule cannot read when a set was announced
     */
    public synchronized Outcome apply(RateLimitConfig fresh) throws SQLException {
        List<String> restart = needRestart(current, fresh);
        if (filter == null) {
            return new Outcome(
                    false,
                    fresh.enabled()
                            ? "rate limits were off at start (rate_limits.enabled: false): turning them on needs a restart"
                            : "rate limits stay off");
        }
        RateLimitNotice.check(fresh, transactions, clock);
        String what;
        if (!fresh.enabled()) {
            filter.reconfigure(List.of(), RateLimiting.plans(current));
            what = "rate limits off: no policy applies until they are on again";
        } else {
            PolicyVersions versions = RateLimiting.versions(fresh, clock);
            if (versions != null) {
                filter.reconfigure(versions, RateLimiting.plans(fresh));
            } else {
                filter.reconfigure(fresh.policies(), RateLimiting.plans(fresh));
            }
            String concurrency = reloadConcurrency(fresh, restart);
            what = "rate limits reloaded: policies "
                    + fresh.policies().stream().map(Policy::name).toList()
                    + concurrency
                    + (fresh.versions().enabled()
                            ? " (set " + fresh.versions().version() + ", "
                                    + fresh.versions().previous().size() + " previous)"
                            : "");
        }
        current = current.withPoliciesOf(fresh);
        if (!countsConcurrency) {
            current = current.withConcurrencyPolicies(List.of());
        }
        return new Outcome(
                true, restart.isEmpty() ? what : what + "; unchanged until a restart: " + String.join(", ", restart));
    }

    /**
     * Swaps the concurrency limits when the filter counts any; adding the first ones needs the
     * store that only a start opens (named in {@code restart}). Returns what to add to the log line.
     */
    private String reloadConcurrency(RateLimitConfig fresh, List<String> restart) {
        List<String> names = fresh.concurrencyPolicies().stream()
                .map(dev.retrysafe.ratelimit.ConcurrencyPolicy::name)
                .toList();
        if (!countsConcurrency) {
            if (!names.isEmpty()) {
                restart.add("concurrency limits " + names + " (none at start)");
            }
            return "";
        }
        java.util.Objects.requireNonNull(filter).reconfigureConcurrency(fresh.concurrencyPolicies());
        return ", concurrency limits " + names;
    }

    /** The settings that differ and that only a restart applies. */
    private static List<String> needRestart(RateLimitConfig running, RateLimitConfig fresh) {
        List<String> differ = new ArrayList<>();
        check(differ, "rate_limits.store", running.store(), fresh.store());
        check(differ, "rate_limits.retry_after_jitter", running.retryAfterJitter(), fresh.retryAfterJitter());
        check(differ, "rate_limits.redis_timeout", running.redisTimeout(), fresh.redisTimeout());
        check(differ, "rate_limits.redis_key_prefix", running.redisKeyPrefix(), fresh.redisKeyPrefix());
        check(
                differ,
                "rate_limits.redis_direct_connection",
                running.redisDirectConnection(),
                fresh.redisDirectConnection());
        check(differ, "rate_limits.trusted_proxies", running.trustedProxies(), fresh.trustedProxies());
        check(differ, "rate_limits.fallback_instances", running.fallbackInstances(), fresh.fallbackInstances());
        return differ;
    }

    private static void check(List<String> differ, String setting, Object running, Object fresh) {
        if (!Objects.equals(running, fresh)) {
            differ.add(setting);
        }
    }
}
