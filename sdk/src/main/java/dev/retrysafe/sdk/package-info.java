/**
 * A typed client of the Retrysafe server's API: {@link dev.retrysafe.sdk.RetrysafeClient} has a
 * method for every {@code /v1} operation of the OpenAPI document (payments, refunds, reports and
 * their jobs, webhook endpoints and their deliveries, events, rate-limit budgets), answers them
 * with immutable records such as {@link dev.retrysafe.sdk.Payment} and
 * {@link dev.retrysafe.sdk.Page}, and reports the API's errors as an
 * {@link dev.retrysafe.sdk.ApiException} carrying its RFC 9457 {@link dev.retrysafe.sdk.Problem}.
 * Every call goes through a {@link dev.retrysafe.client.RetryingHttpClient}, so a lost answer is
 * retried safely with the same {@code Idempotency-Key}.
 */
@NullMarked
package dev.retrysafe.sdk;

import org.jspecify.annotations.NullMarked;
