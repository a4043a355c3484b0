/**
 * Durable webhook delivery, framework-free: events appended to an outbox in the transaction of
 * the change they describe, fanned out to one delivery per subscribed endpoint, sent by a
 * dispatcher in every instance that claims due deliveries with leases, signed per attempt,
 * retried on a schedule for days, and never sent to an address the SSRF guard refuses.
 */
@NullMarked
package dev.retrysafe.delivery;

import org.jspecify.annotations.NullMarked;
