/**
 * The webhook API: endpoints ({@code /v1/webhook_endpoints}), their deliveries and attempts
 * ({@code /v1/deliveries}), over the delivery module's store. Every URL passes the SSRF guard
 * before it is stored; every read and change is scoped to the caller's account.
 */
@NullMarked
package dev.retrysafe.server.webhooks;

import org.jspecify.annotations.NullMarked;
