/**
 * Implementation of the Redis rate-limit store: the key layout, the Lua script's arguments and
 * reply, the connection and the circuit breaker. Not exported.
 */
@NullMarked
package dev.retrysafe.ratelimit.redis.internal;

import org.jspecify.annotations.NullMarked;
