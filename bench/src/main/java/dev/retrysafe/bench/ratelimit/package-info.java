/**
 * Rate-limit benchmarks (issue 3): Retrysafe's in-memory and Redis stores against Bucket4j and
 * Resilience4j under one limit, plus the per-key memory probe. JMH runs them from
 * {@code bench/target/benchmarks.jar}; {@code bench/ratelimit/run.sh} drives the whole set.
 * Never part of a test run.
 */
@NullMarked
package dev.retrysafe.bench.ratelimit;

import org.jspecify.annotations.NullMarked;
