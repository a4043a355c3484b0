/**
 * How a decision's script call reaches Redis: {@link ScriptTransport}, the one interface the
 * decisions use, and what is behind it: Lettuce's multiplexed connection (a call alone, or
 * concurrent decisions in one shared call) and, on a standalone Redis, a plain connection of the
 * store's own written and read on the caller's thread (the direct lane), chosen per call by how
 * many decisions are under way. Not exported.
 */
@NullMarked
package dev.retrysafe.ratelimit.redis.internal.transport;

import org.jspecify.annotations.NullMarked;
