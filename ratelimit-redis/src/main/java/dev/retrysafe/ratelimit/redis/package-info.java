/**
 * A {@link dev.retrysafe.ratelimit.RateLimitStore} whose counters live in Redis (standalone, or
 * laid out for Cluster), so that every instance of a service spends from the same budgets. Each
 * decision is one atomic Lua script over all of a request's charges, timed by Redis's own clock;
 * a command timeout and a circuit breaker keep an outage from slowing requests down, and each
 * policy's fail mode decides what happens meanwhile.
 */
@NullMarked
package dev.retrysafe.ratelimit.redis;

import org.jspecify.annotations.NullMarked;
