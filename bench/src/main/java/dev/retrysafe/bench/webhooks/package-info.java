/** Benchmarks of the webhooks module. */
@NullMarked
package dev.retrysafe.bench.webhooks;

import org.jspecify.annotations.NullMarked;
