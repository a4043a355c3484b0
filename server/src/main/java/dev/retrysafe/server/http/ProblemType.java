package dev.retrysafe.server.http;

import java.util.Arrays;
import java.util.Optional;

/**
 * Every kind of error the server answers, each with a page at {@code /problems/<slug>}. The
 * idempotency filter's types are listed too, taking slug, status and title from the filter, so
 * that their pages exist here.
 */
public enum ProblemType {
    /** No route has this path. */
    NOT_FOUND(
            "not-found",
            404,
            "Not found",
            false,
            "There is nothing at this path, or the resource belongs to another account (which is never revealed)."),
    /** The path exists, the method does not. */
    METHOD_NOT_ALLOWED(
            "method-not-allowed",
            405,
            "Method not allowed",
            false,
            "The path exists but does not accept this method. The Allow header lists the methods it accepts."),
    /** Authentication failed. */
    UNAUTHORIZED(
            "unauthorized",
            401,
            "Authentication required",
            false,
            "Send your API key as <code>Authorization: Bearer &lt;key&gt;</code>. The key was missing or is unknown."),
    /** Body larger than the limit. */
    REQUEST_TOO_LARGE(
            dev.retrysafe.servlet.ProblemType.REQUEST_TOO_LARGE,
            "The request body is larger than the server accepts (1 MiB by default). Send a smaller body. A "
                    + "declared <code>Content-Length</code> over the limit is refused at once, before any of the body "
                    + "is read, and the connection is closed."),
    /** The body came too slowly. */
    BODY_TIMEOUT(
            dev.retrysafe.servlet.ProblemType.BODY_TIMEOUT,
            "The request body did not arrive within <code>limits.body_timeout</code> (30 s by default) of the "
                    + "headers, or, after the first <code>limits.min_body_rate_grace</code> (5 s), at less than "
                    + "<code>limits.min_body_rate</code> (1 KiB/s) on average. Nothing was done and the connection is "
                    + "closed; send the request again, with its whole body at once."),
    /** The body could not be read to its end. */
    BODY_UNREADABLE(
            dev.retrysafe.servlet.ProblemType.BODY_UNREADABLE,
            "The request body could not be read to its end: the connection ended before it was complete, or its "
                    + "chunked framing is broken. Nothing was done; fix the client."),
    /** Memory for request bodies is spoken for. */
    SERVER_BUSY(
            dev.retrysafe.servlet.ProblemType.SERVER_BUSY,
            "The server holds as many request bodies in memory as it allows "
                    + "(<code>limits.max_buffered_body_bytes</code>). Nothing was done; retry after "
                    + "<code>Retry-After</code>."),
    /** Too many requests of one key or address at once. */
    OVERLOADED(
            dev.retrysafe.servlet.ProblemType.OVERLOADED,
            "This server instance is overloaded (too many requests wait for a database connection) and sheds "
                    + "requests of lower priority first, so that payments and refunds keep going through; the "
                    + "problem's <code>priority</code> names the priority refused. Nothing was done and no budget was "
                    + "spent; retry after <code>Retry-After</code>."),
    TOO_MANY_IN_FLIGHT(
            dev.retrysafe.servlet.ProblemType.TOO_MANY_IN_FLIGHT,
            "This API key (or this client address) already has as many requests in flight as it may "
                    + "(<code>limits.max_in_flight_per_key</code>, 64, and <code>limits.max_in_flight_per_address</code>, "
                    + "256, per server instance); the problem's <code>limit</code> names which. Nothing was done and "
                    + "no rate-limit budget was spent. Send fewer requests at once, or retry after "
                    + "<code>Retry-After</code>."),
    /** Jetty could not read the request as HTTP. */
    BAD_REQUEST(
            "bad-request",
            400,
            "Bad request",
            false,
            "The request could not be read as HTTP (a malformed request line, header or encoding). "
                    + "Retrying the same bytes fails the same way: fix the client."),
    /** The request line names no HTTP version the server speaks. */
    HTTP_VERSION_NOT_SUPPORTED(
            "http-version-not-supported",
            505,
            "HTTP version not supported",
            false,
            "The request line names a version of HTTP this server does not speak (<code>HTTP/1.7</code>, "
                    + "<code>HTTP/2.7</code>, <code>HTTP/3.0</code> over a plain connection) or none at all (an HTTP/0.9 "
                    + "request line such as <code>GET /</code>). The server speaks HTTP/1.1 and HTTP/1.0. Nothing "
                    + "reached the API, and retrying the same bytes fails the same way: fix the client."),
    /** The request target is too long. */
    URI_TOO_LONG(
            "uri-too-long",
            414,
            "URI too long",
            false,
            "The request target is longer than the server reads (8 KiB with the headers). Ids and "
                    + "cursors are short; look for a runaway query string."),
    /** The headers are too large. */
    HEADERS_TOO_LARGE(
            "headers-too-large",
            431,
            "Request headers too large",
            false,
            "The request's headers are larger than the server reads (8 KiB in all). Send fewer or shorter headers."),
    /** Body is not JSON. */
    MALFORMED_JSON(
            "malformed-json",
            400,
            "Malformed JSON",
            false,
            "The request body is not valid JSON (one JSON object, UTF-8, no trailing data, no duplicate keys). "
                    + "The <code>detail</code> says where it broke, as a line and a column, what was expected there "
                    + "and what was found. UTF-8 only: a UTF-16 or UTF-32 body is refused (the <code>detail</code> "
                    + "says what was found where); a UTF-8 byte order mark is ignored."),
    /** Wrong content type. */
    UNSUPPORTED_MEDIA_TYPE(
            "unsupported-media-type",
            415,
            "Unsupported media type",
            false,
            "Request bodies must be sent with <code>Content-Type: application/json</code>."),
    /** Fields failed validation. */
    VALIDATION_FAILED(
            "validation-failed",
            400,
            "Invalid request",
            false,
            "One or more fields or parameters are invalid. The <code>errors</code> list names each one "
                    + "(<code>field</code>) and what is wrong with it (<code>detail</code>). Retrying the same request will fail the same way."),
    /** The refund would exceed what remains. */
    REFUND_EXCEEDS_PAYMENT(
            "refund-exceeds-payment",
            422,
            "Refund exceeds what remains",
            false,
            "The refund's amount is larger than what remains of the payment after earlier refunds."),
    /** The payment cannot be refunded. */
    PAYMENT_NOT_REFUNDABLE(
            "payment-not-refundable",
            422,
            "Payment cannot be refunded",
            false,
            "Only succeeded payments can be refunded; this one failed, so nothing was charged."),
    /** The SSRF guard refused a webhook URL. */
    WEBHOOK_URL_REFUSED(
            "webhook-url-refused",
            422,
            "Webhook URL refused",
            false,
            "Webhook deliveries are only sent to public <code>https</code> URLs: the URL must use <code>https</code> "
                    + "(or <code>http</code> where the server allows it), carry no user information, and every "
                    + "address its host resolves to must be public (no loopback, private, link-local, cloud "
                    + "metadata, CGNAT, multicast, unspecified or IPv6 unique-local addresses, in any spelling). "
                    + "The problem's <code>reason</code> names the rule. The server never says which addresses a "
                    + "name resolved to. Register a publicly reachable URL."),
    /** A delivery cannot be retried in its current state. */
    DELIVERY_NOT_RETRYABLE(
            "delivery-not-retryable",
            409,
            "Delivery cannot be retried now",
            false,
            "An attempt of this delivery is under way right now, or its endpoint is disabled; the problem's "
                    + "<code>reason</code> says which. Wait for the attempt to finish, or enable the endpoint, "
                    + "then retry."),
    /** A finished job cannot be canceled. */
    JOB_FINISHED(
            "job-finished",
            409,
            "Job already finished",
            false,
            "The job has already succeeded or failed, so there is nothing left to cancel. The problem's "
                    + "<code>job</code> member is the job as it stands."),
    /** The job's result is not there (yet). */
    JOB_RESULT_NOT_READY(
            "job-result-not-ready",
            409,
            "Job result not available",
            true,
            "Only a succeeded job has a result. While the job is queued or running, poll <code>GET /v1/jobs/{id}</code> "
                    + "after <code>Retry-After</code> seconds; a failed or canceled job never gets one."),
    /** The job's result is past its retention. */
    JOB_RESULT_EXPIRED(
            "job-result-expired",
            410,
            "Job result expired",
            false,
            "The result was kept for its retention time (24 hours by default, <code>result_expires_at</code> on the job) "
                    + "and has been deleted. Create a new report to get a fresh one."),
    /** A job failed because its worker kept dying. */
    JOB_WORKER_LOST(
            "worker-lost",
            500,
            "The job's worker stopped",
            true,
            "Every worker that took this job stopped before finishing it (the server instance crashed or was killed), "
                    + "as many times as the job may be tried. Nothing of it was kept. Create the job again."),
    /** A job failed with an error inside the server. */
    JOB_ERROR(
            "job-error",
            500,
            "The job failed",
            true,
            "The job stopped with an error inside the server. Nothing of it was kept; creating it again is safe."),
    /** The simulated bank failed; nothing was charged. */
    BANK_UNAVAILABLE(
            "bank-unavailable",
            503,
            "Bank unavailable",
            true,
            "The bank could not process the charge. Nothing was recorded and nothing was charged: retry "
                    + "with the same Idempotency-Key (the response carries <code>retryable: true</code>)."),
    /** A plain request to the WebSocket of the live event stream. */
    UPGRADE_REQUIRED(
            "upgrade-required",
            426,
            "WebSocket upgrade required",
            false,
            "<code>GET /v1/events/stream</code> is a WebSocket: open it with a WebSocket client (an HTTP/1.1 "
                    + "<code>Upgrade: websocket</code> request). The protocol is in <code>docs/live-events.md</code>; "
                    + "<code>GET /v1/events</code> lists the same events page by page."),
    /** A dependency is down. */
    SERVICE_UNAVAILABLE(
            dev.retrysafe.servlet.ProblemType.SERVICE_UNAVAILABLE,
            "A dependency of the server (its database, or Redis) cannot be reached right now. Retry later."),
    /** A bug on our side. */
    INTERNAL_ERROR(
            dev.retrysafe.servlet.ProblemType.INTERNAL_ERROR,
            "Something failed inside the server. Any effect of the request was rolled back, so it is safe to retry."),
    /** A rate-limit policy refused the request. */
    RATE_LIMITED(
            dev.retrysafe.servlet.ProblemType.RATE_LIMITED,
            "You sent more requests than a rate-limit policy allows. The problem's <code>policy</code> names it and "
                    + "<code>retry_after</code> (like the <code>Retry-After</code> header) says how many seconds to wait. "
                    + "The refused request had no effect and spent no budget. Every answer carries "
                    + "<code>RateLimit</code> and <code>X-RateLimit-*</code> headers, so a client can slow down before "
                    + "it is refused; <code>GET /v1/rate_limit</code> lists every budget."),
    /** A concurrency limit refused the request. */
    CONCURRENCY_LIMITED(
            dev.retrysafe.servlet.ProblemType.CONCURRENCY_LIMITED,
            "This API key (or whatever the policy's scope names) already has as many requests in flight as a "
                    + "concurrency-limit policy allows, counted across every server instance. The problem's "
                    + "<code>policy</code> names it and <code>limit</code> says how many may run at once. The refused "
                    + "request had no effect and spent no budget; retry after <code>Retry-After</code>, or send fewer "
                    + "requests at once."),
    /** The rate-limit store is down and a policy fails closed. */
    RATE_LIMIT_UNAVAILABLE(
            dev.retrysafe.servlet.ProblemType.RATE_LIMIT_UNAVAILABLE,
            "The rate-limit counters cannot be reached right now and a policy that applies to this request is "
                    + "configured to refuse rather than go uncounted. The request had no effect; retry after "
                    + "<code>Retry-After</code>."),
    /** A webhook delivery to a Retrysafe receiver failed verification. */
    WEBHOOK_REJECTED(
            dev.retrysafe.servlet.ProblemType.WEBHOOK_REJECTED,
            "The webhook delivery failed verification: a <code>webhook-id</code>, <code>webhook-timestamp</code> or "
                    + "<code>webhook-signature</code> header is missing or malformed, the timestamp is outside the "
                    + "tolerance (5 minutes by default), or no signature matches the endpoint's secret. The problem's "
                    + "<code>reason</code> says which. Sign <code>id.timestamp.body</code> over the exact body bytes sent."),
    /** Idempotency key missing where required. */
    IDEMPOTENCY_KEY_MISSING(
            dev.retrysafe.servlet.ProblemType.IDEMPOTENCY_KEY_MISSING,
            "This endpoint requires an <code>Idempotency-Key</code> header: a unique value per operation "
                    + "(a UUID is ideal), sent again unchanged on every retry of that operation."),
    /** Idempotency key malformed. */
    IDEMPOTENCY_KEY_INVALID(
            dev.retrysafe.servlet.ProblemType.IDEMPOTENCY_KEY_INVALID,
            "An <code>Idempotency-Key</code> is 1 to 255 printable ASCII characters, sent bare or as a "
                    + "Structured Field string (in double quotes)."),
    /** The key's first request is still running. */
    IDEMPOTENCY_KEY_IN_USE(
            dev.retrysafe.servlet.ProblemType.IDEMPOTENCY_KEY_IN_USE,
            "A request with this key is still being processed. Retry after the delay in <code>Retry-After</code>; "
                    + "you will then get the first request's answer."),
    /** The key was used for another request. */
    IDEMPOTENCY_KEY_REUSED(
            dev.retrysafe.servlet.ProblemType.IDEMPOTENCY_KEY_REUSED,
            "This key was already used for a different request (another method, path or body). Use a new key for a new operation.");

    private final String slug;
    private final int status;
    private final String title;
    private final boolean retryable;
    private final String explanation;

    ProblemType(dev.retrysafe.servlet.ProblemType filterType, String explanation) {
        this(filterType.slug(), filterType.status(), filterType.title(), filterType.retryable(), explanation);
    }

    ProblemType(String slug, int status, String title, boolean retryable, String explanation) {
        this.slug = slug;
        this.status = status;
        this.title = title;
        this.retryable = retryable;
        this.explanation = explanation;
    }

    /** The last segment of the type URI. */
    public String slug() {
        return slug;
    }

    /** The HTTP status this problem is answered with. */
    public int status() {
        return status;
    }

    /** A short, fixed summary. */
    public String title() {
        return title;
    }

    /**
     * Whether the same request, sent again unchanged, may succeed later: the {@code retryable}
     * member every problem of this type carries, unless the occurrence knows better (a job's
     * result that can no longer come, a delivery whose endpoint is disabled).
     */
    public boolean retryable() {
        return retryable;
    }

    /** What the problem means and what to do, as an HTML fragment for the problem's page. */
    public String explanation() {
        return explanation;
    }

    /** The {@code type} member: {@code /problems/<slug>}. */
    public String uri() {
        return "/problems/" + slug;
    }

    /** The type with {@code slug}, if any. */
    public static Optional<ProblemType> bySlug(String slug) {
        return Arrays.stream(values()).filter(t -> t.slug.equals(slug)).findFirst();
    }
}
