package dev.retrysafe.sdk;

import dev.retrysafe.client.RetryFailedException;
import dev.retrysafe.client.RetryingHttpClient;
import dev.retrysafe.sdk.internal.DefaultRetrysafeClient;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A typed client of the Retrysafe server's API: payments, refunds, reports and their jobs, webhook
 * endpoints and their deliveries, events, rate-limit budgets: every {@code /v1} operation of the
 * OpenAPI document. Every call goes through a {@link RetryingHttpClient}, so every {@code POST} carries an
 * {@code Idempotency-Key} (generated once per call and kept over its retries, or the one given;
 * unless that client's policy turns generation off) and a lost answer is retried safely.
 *
 * <p>Every method throws {@link IOException}: an {@link ApiException} when the API answered with an
 * error (its problem details inside; an unknown id, or another account's, is a {@code 404} with the
 * problem type {@code /problems/not-found}), a {@link RetryFailedException} when no answer came, and a
 * plain {@code IOException} when an answer was not what the API promises.
 *
 * <p>This class is threadsafe.
 *
 * <pre>{@code
 * try (RetrysafeClient api = RetrysafeClient.builder()
 *         .baseUri(URI.create("http://localhost:8080")).apiKey(System.getenv("RETRYSAFE_API_KEY")).build()) {
 *     Payment payment = api.createPayment(500, "eur", "order 17");
 *     AcceptedJob report = api.createReport(null, null);
 *     Job done = api.awaitJob(report, Duration.ofMinutes(2));
 *     String csv = api.jobResult(done.id(), HttpResponse.BodyHandlers.ofString());
 * }
 * }</pre>
 */
public interface RetrysafeClient extends AutoCloseable {

    /** Largest page size the API serves. */
    int MAX_PAGE_SIZE = 100;

    /**
     * {@code POST /v1/payments} with a generated {@code Idempotency-Key}.
     *
     * @param amount in minor units, positive
     * @param currency lower-case ISO 4217 code, such as {@code eur}
     * @param description free text, or {@code null}
     * @return the payment (status {@code succeeded} or {@code failed})
     * @throws IOException see the class description
     * @throws InterruptedException if interrupted while sending or waiting
     */
    Payment createPayment(long amount, String currency, @Nullable String description)
            throws IOException, InterruptedException;

    /**
     * {@code POST /v1/payments} with {@code idempotencyKey}: the same key with the same request
     * (now or up to the server's retention later) gets the same payment back, never a second one.
     *
     * @param amount in minor units, positive
     * @param currency lower-case ISO 4217 code
     * @param description free text, or {@code null}
     * @param idempotencyKey 1 to 255 printable ASCII characters
     * @return the payment
     * @throws IOException see the class description
     * @throws InterruptedException if interrupted while sending or waiting
     */
    Payment createPayment(long amount, String currency, @Nullable String description, String idempotencyKey)
            throws IOException, InterruptedException;

    /**
     * {@code GET /v1/payments/{id}}.
     *
     * @param id {@code pay_...}
     * @return the payment
     * @throws IOException see the class description ({@code 404} for an unknown id)
     * @throws InterruptedException if interrupted while sending or waiting
     */
    Payment getPayment(String id) throws IOException, InterruptedException;

    /**
     * {@code GET /v1/payments}, newest first.
     *
     * @param limit 1..{@value #MAX_PAGE_SIZE}
     * @param startingAfter the id after which the page starts, or {@code null} for the first page
     * @return the page
     * @throws IOException see the class description
     * @throws InterruptedException if interrupted while sending or waiting
     */
    Page<Payment> listPayments(int limit, @Nullable String startingAfter) throws IOException, InterruptedException;

    /**
     * {@code POST /v1/refunds} with a generated {@code Idempotency-Key}.
     *
     * @param paymentId the payment to refund
     * @param amount in minor units, or {@code null} for all that remains
     * @return the refund
     * @throws IOException see the class description ({@code 422} when more than remains is asked)
     * @throws InterruptedException if interrupted while sending or waiting
     */
    Refund createRefund(String paymentId, @Nullable Long amount) throws IOException, InterruptedException;

    /**
     * {@code POST /v1/refunds} with {@code idempotencyKey}.
     *
     * @param paymentId the payment to refund
     * @param amount in minor units, or {@code null} for all that remains
     * @param idempotencyKey 1 to 255 printable ASCII characters
     * @return the refund
     * @throws IOException see the class description
     * @throws InterruptedException if interrupted while sending or waiting
     */
    Refund createRefund(String paymentId, @Nullable Long amount, String idempotencyKey)
            throws IOException, InterruptedException;

    /**
     * {@code GET /v1/refunds/{id}}.
     *
     * @param id {@code re_...}
     * @return the refund
     * @throws IOException see the class description ({@code 404} for an unknown id)
     * @throws InterruptedException if interrupted while sending or waiting
     */
    Refund getRefund(String id) throws IOException, InterruptedException;

    /**
     * {@code GET /v1/refunds}, newest first.
     *
     * @param limit 1..{@value #MAX_PAGE_SIZE}
     * @param startingAfter the id after which the page starts, or {@code null} for the first page
     * @return the page
     * @throws IOException see the class description
     * @throws InterruptedException if interrupted while sending or waiting
     */
    Page<Refund> listRefunds(int limit, @Nullable String startingAfter) throws IOException, InterruptedException;

    /**
     * {@code POST /v1/reports} {@code {"kind": "payments_csv", "from": ..., "to": ...}} with a generated
     * {@code Idempotency-Key}: a CSV of the account's payments, built in the background.
     *
     * @param from the first creation time included, or {@code null} for the first payment
     * @param to the first creation time excluded, or {@code null} for now
     * @return the accepted job, where to follow it and when
     * @throws IOException see the class description
     * @throws InterruptedException if interrupted while sending or waiting
     */
    AcceptedJob createReport(@Nullable Instant from, @Nullable Instant to) throws IOException, InterruptedException;

    /**
     * {@code GET /v1/jobs/{id}}.
     *
     * @param id {@code job_...}
     * @return the job
     * @throws IOException see the class description
     * @throws InterruptedException if interrupted while sending or waiting
     */
    Job getJob(String id) throws IOException, InterruptedException;

    /**
     * {@code GET /v1/jobs}, newest first.
     *
     * @param limit 1..{@value #MAX_PAGE_SIZE}
     * @param startingAfter the id after which the page starts, or {@code null} for the first page
     * @return the page
     * @throws IOException see the class description
     * @throws InterruptedException if interrupted while sending or waiting
     */
    Page<Job> listJobs(int limit, @Nullable String startingAfter) throws IOException, InterruptedException;

    /**
     * Follows an accepted job until it finishes: waits its {@code Retry-After}, reads its
     * {@code Location}, and again after each answer's {@code Retry-After} (1 s when absent, at least
     * 100 ms, at most 1 minute), as long as the next look falls within {@code timeout}.
     *
     * @param accepted what {@link #createReport} returned
     * @param timeout how long to follow it
     * @return the finished job, or the last state seen if {@code timeout} ran out first (check
     *     {@link Job#finished()})
     * @throws IOException see the class description
     * @throws InterruptedException if interrupted while sending or waiting
     */
    Job awaitJob(AcceptedJob accepted, Duration timeout) throws IOException, InterruptedException;

    /**
     * {@code DELETE /v1/jobs/{id}}: cancels a queued job at once, asks a running one to stop; the
     * same again is harmless.
     *
     * @param id {@code job_...}
     * @return the job after the request
     * @throws IOException see the class description ({@code 409} for a job that already finished)
     * @throws InterruptedException if interrupted while sending or waiting
     */
    Job cancelJob(String id) throws IOException, InterruptedException;

    /**
     * {@code GET /v1/jobs/{id}/result}: the file of a succeeded job ({@code text/csv} for reports).
     *
     * @param id {@code job_...}
     * @param handler how to read it, such as {@code BodyHandlers.ofString()} or {@code ofFile(path)}
     * @param <T> what the handler makes of it
     * @return the file
     * @throws IOException see the class description ({@code 409} before the job succeeded,
     *     {@code 410} after the result's retention)
     * @throws InterruptedException if interrupted while sending or waiting
     */
    <T> T jobResult(String id, HttpResponse.BodyHandler<T> handler) throws IOException, InterruptedException;

    /**
     * {@code POST /v1/webhook_endpoints} with a generated {@code Idempotency-Key}.
     *
     * @param url where to deliver events (https, a public address)
     * @param eventTypes the event types to deliver, or {@code List.of("*")}
     * @param description free text, or {@code null}
     * @return the endpoint and its signing secret, shown only now
     * @throws IOException see the class description
     * @throws InterruptedException if interrupted while sending or waiting
     */
    CreatedWebhookEndpoint createWebhookEndpoint(String url, List<String> eventTypes, @Nullable String description)
            throws IOException, InterruptedException;

    /**
     * {@code POST /v1/webhook_endpoints} with a generated {@code Idempotency-Key}: an endpoint with
     * the optional members {@code endpoint} sets (rate limit, ordering, custom headers).
     *
     * @param endpoint what to register
     * @return the endpoint and its signing secret, shown only now; its custom headers by name only
     * @throws IOException see the class description ({@code 400} naming a custom header the server
     *     refuses, never quoting its value)
     * @throws InterruptedException if interrupted while sending or waiting
     */
    CreatedWebhookEndpoint createWebhookEndpoint(NewWebhookEndpoint endpoint) throws IOException, InterruptedException;

    /**
     * {@code GET /v1/webhook_endpoints/{id}}.
     *
     * @param id {@code we_...}
     * @return the endpoint
     * @throws IOException see the class description
     * @throws InterruptedException if interrupted while sending or waiting
     */
    WebhookEndpoint getWebhookEndpoint(String id) throws IOException, InterruptedException;

    /**
     * {@code GET /v1/webhook_endpoints}.
     *
     * @param limit 1..{@value #MAX_PAGE_SIZE}
     * @param startingAfter the id after which the page starts, or {@code null} for the first page
     * @return the page
     * @throws IOException see the class description
     * @throws InterruptedException if interrupted while sending or waiting
     */
    Page<WebhookEndpoint> listWebhookEndpoints(int limit, @Nullable String startingAfter)
            throws IOException, InterruptedException;

    /**
     * {@code DELETE /v1/webhook_endpoints/{id}}.
     *
     * @param id {@code we_...}
     * @throws IOException see the class description
     * @throws InterruptedException if interrupted while sending or waiting
     */
    void deleteWebhookEndpoint(String id) throws IOException, InterruptedException;

    /**
     * {@code PATCH /v1/webhook_endpoints/{id}}: changes only what {@code update} sets.
     *
     * @param id {@code we_...}
     * @param update the change
     * @return the endpoint after the change
     * @throws IOException see the class description ({@code 422} when the new URL is refused)
     * @throws InterruptedException if interrupted while sending or waiting
     */
    WebhookEndpoint updateWebhookEndpoint(String id, WebhookEndpointUpdate update)
            throws IOException, InterruptedException;

    /**
     * {@code GET /v1/webhook_endpoints/{id}/secret}.
     *
     * @param id {@code we_...}
     * @return the current signing secret, {@code whsec_} and base64
     * @throws IOException see the class description
     * @throws InterruptedException if interrupted while sending or waiting
     */
    String getWebhookEndpointSecret(String id) throws IOException, InterruptedException;

    /**
     * {@code POST /v1/webhook_endpoints/{id}/rotate_secret} with a generated {@code Idempotency-Key}
     * (a retry gets the same new secret): a new secret signs from now on, and the previous one too
     * until {@link WebhookEndpoint#previousSecretExpiresAt()}.
     *
     * @param id {@code we_...}
     * @return the endpoint and its new secret
     * @throws IOException see the class description
     * @throws InterruptedException if interrupted while sending or waiting
     */
    CreatedWebhookEndpoint rotateWebhookEndpointSecret(String id) throws IOException, InterruptedException;

    /**
     * {@code POST /v1/webhook_endpoints/{id}/enable}: enabled, its failing streak forgotten.
     *
     * @param id {@code we_...}
     * @return the endpoint, enabled
     * @throws IOException see the class description
     * @throws InterruptedException if interrupted while sending or waiting
     */
    WebhookEndpoint enableWebhookEndpoint(String id) throws IOException, InterruptedException;

    /**
     * {@code POST /v1/webhook_endpoints/{id}/pause}: its deliveries wait (none attempted, none
     * failed, its failing streak stopped) until it is resumed.
     *
     * @param id {@code we_...}
     * @return the endpoint, paused
     * @throws IOException see the class description
     * @throws InterruptedException if interrupted while sending or waiting
     */
    WebhookEndpoint pauseWebhookEndpoint(String id) throws IOException, InterruptedException;

    /**
     * {@code POST /v1/webhook_endpoints/{id}/resume}: what waited is sent, oldest first.
     *
     * @param id {@code we_...}
     * @return the endpoint, no longer paused
     * @throws IOException see the class description
     * @throws InterruptedException if interrupted while sending or waiting
     */
    WebhookEndpoint resumeWebhookEndpoint(String id) throws IOException, InterruptedException;

    /**
     * {@code POST /v1/webhook_endpoints/{id}/recover} {@code {"since": ...}}: sends every failed
     * delivery of the endpoint made since then again.
     *
     * @param id {@code we_...}
     * @param since the earliest creation time of the deliveries to send again
     * @return how many will be sent again
     * @throws IOException see the class description
     * @throws InterruptedException if interrupted while sending or waiting
     */
    Recovery recoverWebhookEndpoint(String id, Instant since) throws IOException, InterruptedException;

    /**
     * {@code GET /v1/webhook_endpoints/{id}/deliveries}, newest first.
     *
     * @param id {@code we_...}
     * @param limit 1..{@value #MAX_PAGE_SIZE}
     * @param startingAfter the delivery id after which the page starts, or {@code null} for the first page
     * @return the page
     * @throws IOException see the class description
     * @throws InterruptedException if interrupted while sending or waiting
     */
    Page<Delivery> listWebhookEndpointDeliveries(String id, int limit, @Nullable String startingAfter)
            throws IOException, InterruptedException;

    /**
     * {@code GET /v1/deliveries/{id}}: the delivery, its payload and every attempt.
     *
     * @param id {@code msg_...}
     * @return the delivery
     * @throws IOException see the class description
     * @throws InterruptedException if interrupted while sending or waiting
     */
    DeliveryDetail getDelivery(String id) throws IOException, InterruptedException;

    /**
     * {@code POST /v1/deliveries/{id}/retry} with a generated {@code Idempotency-Key}: sent again
     * now, a succeeded delivery too (a replay with the same {@code webhook-id}).
     *
     * @param id {@code msg_...}
     * @return the delivery, pending and due now
     * @throws IOException see the class description ({@code 409} while an attempt is under way or
     *     when the endpoint is disabled; the problem's {@code reason} says which)
     * @throws InterruptedException if interrupted while sending or waiting
     */
    Delivery retryDelivery(String id) throws IOException, InterruptedException;

    /**
     * {@code GET /v1/webhook_attempt_stats?hours=}: the account's delivery attempts by outcome, per hour.
     *
     * @param hours how many hours back from now, 1..168
     * @return one bucket per hour, oldest first
     * @throws IOException see the class description
     * @throws InterruptedException if interrupted while sending or waiting
     */
    WebhookAttemptStats getWebhookAttemptStats(int hours) throws IOException, InterruptedException;

    /**
     * {@code GET /v1/events}, newest first.
     *
     * @param type only events of this type, such as {@code payment.succeeded}, or {@code null} for all
     * @param limit 1..{@value #MAX_PAGE_SIZE}
     * @param startingAfter the id after which the page starts, or {@code null} for the first page
     * @return the page
     * @throws IOException see the class description
     * @throws InterruptedException if interrupted while sending or waiting
     */
    Page<Event> listEvents(@Nullable String type, int limit, @Nullable String startingAfter)
            throws IOException, InterruptedException;

    /**
     * {@code GET /v1/events/{id}}: the event exactly as its webhooks deliver it.
     *
     * @param id {@code evt_...}
     * @return the event
     * @throws IOException see the class description
     * @throws InterruptedException if interrupted while sending or waiting
     */
    Event getEvent(String id) throws IOException, InterruptedException;

    /**
     * {@code GET /v1/events/{id}/deliveries}: the first page (the server's default size) of the
     * deliveries of an event, one per webhook endpoint it was sent to.
     *
     * @param eventId {@code evt_...}
     * @return the deliveries, newest first
     * @throws IOException see the class description
     * @throws InterruptedException if interrupted while sending or waiting
     */
    Page<Delivery> listEventDeliveries(String eventId) throws IOException, InterruptedException;

    /**
     * {@code GET /v1/events/{id}/deliveries}, one page, newest first.
     *
     * @param eventId {@code evt_...}
     * @param limit 1..{@value #MAX_PAGE_SIZE}
     * @param startingAfter the delivery id after which the page starts, or {@code null} for the first page
     * @return the page
     * @throws IOException see the class description
     * @throws InterruptedException if interrupted while sending or waiting
     */
    Page<Delivery> listEventDeliveries(String eventId, int limit, @Nullable String startingAfter)
            throws IOException, InterruptedException;

    /**
     * {@code GET /v1/rate_limit}: the caller's budget under every policy; asking costs nothing.
     *
     * @return the budgets
     * @throws IOException see the class description
     * @throws InterruptedException if interrupted while sending or waiting
     */
    RateLimitStatus getRateLimits() throws IOException, InterruptedException;

    /** The retrying client the calls go through (its policy, budget and listeners). */
    RetryingHttpClient http();

    /** Closes the retrying client if the builder created it. */
    @Override
    void close();

    /** A builder; give it at least the base URI and the API key. */
    static Builder builder() {
        return new Builder();
    }

    /** Builds a {@link RetrysafeClient}. Not threadsafe; the client is. */
    final class Builder {
        private @Nullable URI baseUri;
        private @Nullable String apiKey;
        private @Nullable RetryingHttpClient http;
        private Duration requestTimeout = Duration.ofSeconds(10);

        private Builder() {}

        /** The server, such as {@code http://localhost:8080}. */
        public Builder baseUri(URI baseUri) {
            this.baseUri = Objects.requireNonNull(baseUri, "baseUri");
            return this;
        }

        /** The API key, sent as {@code Authorization: Bearer <key>}. */
        public Builder apiKey(String apiKey) {
            this.apiKey = Objects.requireNonNull(apiKey, "apiKey");
            return this;
        }

        /**
         * The retrying client (default: {@code RetryingHttpClient.builder().build()}, closed with
         * this client); one passed in stays open.
         */
        public Builder http(RetryingHttpClient http) {
            this.http = Objects.requireNonNull(http, "http");
            return this;
        }

        /** Each attempt's timeout unless the retrying client's policy sets one (default 10 s). */
        public Builder requestTimeout(Duration requestTimeout) {
            this.requestTimeout = Objects.requireNonNull(requestTimeout, "requestTimeout");
            return this;
        }

        /**
         * The client.
         *
         * @throws IllegalStateException without a base URI or API key
         * @throws IllegalArgumentException for a base URI that is not absolute http(s), a key that
         *     is blank or not printable ASCII, or a timeout that is not positive
         */
        public RetrysafeClient build() {
            if (baseUri == null || apiKey == null) {
                throw new IllegalStateException("a RetrysafeClient needs a baseUri and an apiKey");
            }
            if (http != null) {
                return new DefaultRetrysafeClient(baseUri, apiKey, http, false, requestTimeout);
            }
            RetryingHttpClient own = RetryingHttpClient.builder().build();
            try {
                return new DefaultRetrysafeClient(baseUri, apiKey, own, true, requestTimeout);
            } catch (RuntimeException e) {
                own.close();
                throw e;
            }
        }
    }
}
