/**
 * Shared by Retrysafe's modules and by nothing else: running a transaction again after a
 * transient lock conflict, telling a database outage from other failures, reading a module's
 * versioned DDL scripts, the one seam for monotonic time and the one JSON string escaper. Exported only to Retrysafe's modules; not an API.
 */
@NullMarked
package dev.retrysafe.common;

import org.jspecify.annotations.NullMarked;
