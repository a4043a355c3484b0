/**
 * The public part of the leased-work module: {@link dev.retrysafe.leasedwork.Pipeline}, which lets
 * an application send the rows its transaction writes in the same round trip as the delivery
 * outbox's lookup; and {@link dev.retrysafe.leasedwork.BatchedDelete}, the batch loop of every
 * retention purge (the delivery module's and the server's). The engine itself is internal.
 */
@NullMarked
package dev.retrysafe.leasedwork;

import org.jspecify.annotations.NullMarked;
