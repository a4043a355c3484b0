/**
 * The public part of the leased-work module: {@link dev.retrysafe.leasedwork.Pipeline}, which lets
 * an application send the rows its transaction writes in the same round trip as the delivery
 * outbox's lookup. The engine itself is internal.
 */
@NullMarked
package dev.retrysafe.leasedwork;

import org.jspecify.annotations.NullMarked;
