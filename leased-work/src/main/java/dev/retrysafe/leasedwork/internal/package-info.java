/**
 * The leased-work engine and its JDBC helpers, exported only to {@code dev.retrysafe.delivery}
 * and {@code dev.retrysafe.jobs}: {@link dev.retrysafe.leasedwork.internal.WorkLoop} (claim loop,
 * wake-up, bounded workers, periodic upkeep such as heartbeats, graceful close) driven by a
 * module's {@link dev.retrysafe.leasedwork.internal.LeasedWork}, the lease statements of
 * {@link dev.retrysafe.leasedwork.internal.LeaseSql}, and the shared {@code Jdbc}, {@code Rows},
 * {@code Checks}. Not an API.
 */
@NullMarked
package dev.retrysafe.leasedwork.internal;

import org.jspecify.annotations.NullMarked;
