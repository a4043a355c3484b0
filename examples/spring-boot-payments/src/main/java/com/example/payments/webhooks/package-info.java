/** Webhook endpoints of the caller's account ({@code /v1/webhook_endpoints}), on Retrysafe's endpoint service. */
@NullMarked
package com.example.payments.webhooks;

import org.jspecify.annotations.NullMarked;
