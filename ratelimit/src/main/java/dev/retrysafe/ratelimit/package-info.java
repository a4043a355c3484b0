/**
 * Rate limits, framework-free: policies (what is limited, by which key, how much), the four
 * algorithms, one atomic decision over every policy that applies to a request, and the
 * {@code RateLimit}/{@code X-RateLimit-*} headers that let every client see its budget. Stores
 * are a small SPI ({@link dev.retrysafe.ratelimit.RateLimitStore}): in memory here, Redis in
 * {@code retrysafe-ratelimit-redis}.
 */
@NullMarked
package dev.retrysafe.ratelimit;

import org.jspecify.annotations.NullMarked;
