/**
 * The webhook delivery benchmark of issue 5 (driven by {@code bench/delivery/run.sh}): a fast
 * receiver on 127.0.0.1, dispatcher instances with their event producers over one PostgreSQL
 * outbox, and the analysis of what the receiver got against what the producers committed.
 */
@NullMarked
package dev.retrysafe.bench.delivery;

import org.jspecify.annotations.NullMarked;
