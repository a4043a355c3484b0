/**
 * Webhooks as the Standard Webhooks specification defines them (standardwebhooks.com), for both
 * ends: {@link dev.retrysafe.webhooks.WebhookSecret} ({@code whsec_} secrets),
 * {@link dev.retrysafe.webhooks.WebhookSigner} (the {@code webhook-signature} header of a
 * delivery, several secrets during a rotation), {@link dev.retrysafe.webhooks.WebhookVerifier}
 * (authenticity, integrity and freshness of a received delivery, with bounded work on hostile
 * input) and {@link dev.retrysafe.webhooks.WebhookDeduplicator} (run each event once although it
 * is delivered at least once). Framework-free; the servlet filter lives in {@code retrysafe-servlet}.
 */
@NullMarked
package dev.retrysafe.webhooks;

import org.jspecify.annotations.NullMarked;
