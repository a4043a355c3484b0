/**
 * Implementation of the Redis rate-limit store: the key layout, the Lua script's arguments and
 * reply, the decisions with their circuit breakers and fail modes; how a call reaches Redis is
 * {@code internal.transport}. Not exported.
 */
@NullMarked
package dev.retrysafe.ratelimit.redis.internal;

import org.jspecify.annotations.NullMarked;
