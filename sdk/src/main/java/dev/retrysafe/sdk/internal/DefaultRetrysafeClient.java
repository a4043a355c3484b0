package dev.retrysafe.sdk.internal;

import static dev.retrysafe.sdk.internal.Resources.delivery;
import static dev.retrysafe.sdk.internal.Resources.endpoint;
import static dev.retrysafe.sdk.internal.Resources.event;
import static dev.retrysafe.sdk.internal.Resources.job;
import static dev.retrysafe.sdk.internal.Resources.page;
import static dev.retrysafe.sdk.internal.Resources.payment;
import static dev.retrysafe.sdk.internal.Resources.refund;

import dev.retrysafe.client.CallResult;
import dev.retrysafe.client.RetryingHttpClient;
import dev.retrysafe.client.internal.Execution;
import dev.retrysafe.client.internal.RetryAfterHeader;
import dev.retrysafe.sdk.AcceptedJob;
import dev.retrysafe.sdk.ApiException;
import dev.retrysafe.sdk.CreatedWebhookEndpoint;
import dev.retrysafe.sdk.Delivery;
import dev.retrysafe.sdk.DeliveryDetail;
import dev.retrysafe.sdk.Event;
import dev.retrysafe.sdk.Job;
import dev.retrysafe.sdk.NewWebhookEndpoint;
import dev.retrysafe.sdk.Page;
import dev.retrysafe.sdk.Payment;
import dev.retrysafe.sdk.Problem;
import dev.retrysafe.sdk.RateLimitStatus;
import dev.retrysafe.sdk.Recovery;
import dev.retrysafe.sdk.Refund;
import dev.retrysafe.sdk.RetrysafeClient;
import dev.retrysafe.sdk.WebhookAttemptStats;
import dev.retrysafe.sdk.WebhookEndpoint;
import dev.retrysafe.sdk.WebhookEndpointUpdate;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The {@link RetrysafeClient}: builds requests, sends them through the retrying client, maps
 * answers to records and errors to {@link ApiException}. This class is threadsafe (immutable).
 */
public final class DefaultRetrysafeClient implements RetrysafeClient {

    /** The wait between looks at a job when its answer has no {@code Retry-After}. */
    static final Duration DEFAULT_POLL = Duration.ofSeconds(1);
    /** The shortest wait between looks at a job, whatever the server says. */
    static final Duration MIN_POLL = Duration.ofMillis(100);
    /** The longest wait between looks at a job, whatever the server says. */
    static final Duration MAX_POLL = Duration.ofMinutes(1);
    /** The report the API builds. */
    static final String PAYMENTS_CSV = "payments_csv";
    /** The most hours {@code GET /v1/webhook_attempt_stats} covers (a week). */
    static final int MAX_STATS_HOURS = 168;

    private final URI baseUri;
    private final String authorization;
    private final RetryingHttpClient http;
    private final boolean ownsHttp;
    private final Duration requestTimeout;

    /** A client of the API at {@code baseUri}. */
    public DefaultRetrysafeClient(
            URI baseUri, String apiKey, RetryingHttpClient http, boolean ownsHttp, Duration requestTimeout) {
        String scheme = baseUri.getScheme();
        if (!baseUri.isAbsolute() || baseUri.getHost() == null || !("http".equals(scheme) || "https".equals(scheme))) {
            throw new IllegalArgumentException("baseUri must be an absolute http(s) URI, was " + baseUri);
        }
        if (apiKey.isBlank() || !apiKey.chars().allMatch(c -> c > 0x20 && c < 0x7f)) {
            throw new IllegalArgumentException("apiKey must be printable ASCII without spaces");
        }
        if (!requestTimeout.isPositive()) {
            throw new IllegalArgumentException("requestTimeout must be positive, was " + requestTimeout);
        }
        this.baseUri = baseUri;
        this.authorization = "Bearer " + apiKey;
        this.http = http;
        this.ownsHttp = ownsHttp;
        this.requestTimeout = requestTimeout;
    }

    @Override
    public Payment createPayment(long amount, String currency, @Nullable String description)
            throws IOException, InterruptedException {
        return payment(post("/v1/payments", paymentBody(amount, currency, description), null, 201)
                .fields("payment"));
    }

    @Override
    public Payment createPayment(long amount, String currency, @Nullable String description, String idempotencyKey)
            throws IOException, InterruptedException {
        return payment(post("/v1/payments", paymentBody(amount, currency, description), key(idempotencyKey), 201)
                .fields("payment"));
    }

    private static Map<String, @Nullable Object> paymentBody(
            long amount, String currency, @Nullable String description) {
        Map<String, @Nullable Object> body = new LinkedHashMap<>();
        body.put("amount", amount);
        body.put("currency", Objects.requireNonNull(currency, "currency"));
        if (description != null) {
            body.put("description", description);
        }
        return body;
    }

    @Override
    public Payment getPayment(String id) throws IOException, InterruptedException {
        return payment(get("/v1/payments/" + segment(id)).fields("payment"));
    }

    @Override
    public Page<Payment> listPayments(int limit, @Nullable String startingAfter)
            throws IOException, InterruptedException {
        return page(
                get(listPath("/v1/payments", limit, startingAfter)).fields("list of payments"),
                "payment",
                Resources::payment);
    }

    @Override
    public Refund createRefund(String paymentId, @Nullable Long amount) throws IOException, InterruptedException {
        return refund(
                post("/v1/refunds", refundBody(paymentId, amount), null, 201).fields("refund"));
    }

    @Override
    public Refund createRefund(String paymentId, @Nullable Long amount, String idempotencyKey)
            throws IOException, InterruptedException {
        return refund(post("/v1/refunds", refundBody(paymentId, amount), key(idempotencyKey), 201)
                .fields("refund"));
    }

    private static Map<String, @Nullable Object> refundBody(String paymentId, @Nullable Long amount) {
        Map<String, @Nullable Object> body = new LinkedHashMap<>();
        body.put("payment_id", Objects.requireNonNull(paymentId, "paymentId"));
        if (amount != null) {
            body.put("amount", amount);
        }
        return body;
    }

    @Override
    public Refund getRefund(String id) throws IOException, InterruptedException {
        return refund(get("/v1/refunds/" + segment(id)).fields("refund"));
    }

    @Override
    public Page<Refund> listRefunds(int limit, @Nullable String startingAfter)
            throws IOException, InterruptedException {
        return page(
                get(listPath("/v1/refunds", limit, startingAfter)).fields("list of refunds"),
                "refund",
                Resources::refund);
    }

    @Override
    public AcceptedJob createReport(@Nullable Instant from, @Nullable Instant to)
            throws IOException, InterruptedException {
        Map<String, @Nullable Object> body = new LinkedHashMap<>();
        body.put("kind", PAYMENTS_CSV);
        if (from != null) {
            body.put("from", from.toString());
        }
        if (to != null) {
            body.put("to", to.toString());
        }
        Answer answer = post("/v1/reports", body, null, 202);
        Job job = job(answer.fields("job"));
        URI location = answer.result
                .response()
                .headers()
                .firstValue("Location")
                .map(baseUri::resolve)
                .orElse(baseUri.resolve("/v1/jobs/" + segment(job.id())));
        return new AcceptedJob(job, location, pollAfter(answer.result.response()));
    }

    @Override
    public Job getJob(String id) throws IOException, InterruptedException {
        return job(get("/v1/jobs/" + segment(id)).fields("job"));
    }

    @Override
    public Page<Job> listJobs(int limit, @Nullable String startingAfter) throws IOException, InterruptedException {
        return page(get(listPath("/v1/jobs", limit, startingAfter)).fields("list of jobs"), "job", Resources::job);
    }

    @Override
    public Job awaitJob(AcceptedJob accepted, Duration timeout) throws IOException, InterruptedException {
        if (timeout.isNegative()) {
            throw new IllegalArgumentException("timeout must not be negative, was " + timeout);
        }
        Instant deadline = http.clock().instant().plus(timeout);
        Job job = accepted.job();
        Duration wait = clamp(accepted.retryAfter());
        while (!job.finished()) {
            if (http.clock().instant().plus(wait).isAfter(deadline)) {
                return job;
            }
            http.sleeper().sleep(wait);
            Answer answer = send("GET", accepted.location(), null, null, 200);
            job = job(answer.fields("job"));
            wait = pollAfter(answer.result.response());
        }
        return job;
    }

    @Override
    public Job cancelJob(String id) throws IOException, InterruptedException {
        return job(send("DELETE", uri("/v1/jobs/" + segment(id)), null, null, 200, 202)
                .fields("job"));
    }

    @Override
    public <T> T jobResult(String id, HttpResponse.BodyHandler<T> handler) throws IOException, InterruptedException {
        String path = "/v1/jobs/" + segment(id) + "/result";
        HttpRequest request = request("GET", uri(path), null, null);
        // read errors as text, the file with the caller's handler
        CallResult<Object> result = http.send(
                request,
                info -> info.statusCode() == 200
                        ? mapped(handler.apply(info))
                        : mapped(HttpResponse.BodySubscribers.ofString(StandardCharsets.UTF_8)));
        if (result.statusCode() != 200) {
            throw apiException("GET", path, result, String.valueOf(result.body()));
        }
        @SuppressWarnings("unchecked")
        T body = (T) result.body();
        return body;
    }

    @SuppressWarnings("unchecked")
    private static HttpResponse.BodySubscriber<Object> mapped(HttpResponse.BodySubscriber<?> subscriber) {
        return (HttpResponse.BodySubscriber<Object>) subscriber;
    }

    @Override
    public CreatedWebhookEndpoint createWebhookEndpoint(
            String url, List<String> eventTypes, @Nullable String description)
            throws IOException, InterruptedException {
        NewWebhookEndpoint.Builder registration = NewWebhookEndpoint.builder(url, eventTypes);
        if (description != null) {
            registration.description(description);
        }
        return createWebhookEndpoint(registration.build());
    }

    @Override
    public CreatedWebhookEndpoint createWebhookEndpoint(NewWebhookEndpoint registration)
            throws IOException, InterruptedException {
        JsonFields f =
                post("/v1/webhook_endpoints", registration.members(), null, 201).fields("webhook endpoint");
        return new CreatedWebhookEndpoint(endpoint(f), f.string("secret"));
    }

    @Override
    public WebhookEndpoint getWebhookEndpoint(String id) throws IOException, InterruptedException {
        return endpoint(get(endpointPath(id)).fields("webhook endpoint"));
    }

    @Override
    public Page<WebhookEndpoint> listWebhookEndpoints(int limit, @Nullable String startingAfter)
            throws IOException, InterruptedException {
        return page(
                get(listPath("/v1/webhook_endpoints", limit, startingAfter)).fields("list of webhook endpoints"),
                "webhook endpoint",
                Resources::endpoint);
    }

    @Override
    public WebhookEndpoint updateWebhookEndpoint(String id, WebhookEndpointUpdate update)
            throws IOException, InterruptedException {
        return endpoint(send("PATCH", uri(endpointPath(id)), Json.write(update.members()), null, 200)
                .fields("webhook endpoint"));
    }

    @Override
    public void deleteWebhookEndpoint(String id) throws IOException, InterruptedException {
        send("DELETE", uri(endpointPath(id)), null, null, 200, 204);
    }

    @Override
    public String getWebhookEndpointSecret(String id) throws IOException, InterruptedException {
        return get(endpointPath(id) + "/secret")
                .fields("webhook endpoint secret")
                .string("secret");
    }

    @Override
    public CreatedWebhookEndpoint rotateWebhookEndpointSecret(String id) throws IOException, InterruptedException {
        JsonFields f = post(endpointPath(id) + "/rotate_secret", null, 200).fields("webhook endpoint");
        return new CreatedWebhookEndpoint(endpoint(f), f.string("secret"));
    }

    @Override
    public WebhookEndpoint enableWebhookEndpoint(String id) throws IOException, InterruptedException {
        return endpoint(post(endpointPath(id) + "/enable", null, 200).fields("webhook endpoint"));
    }

    @Override
    public WebhookEndpoint pauseWebhookEndpoint(String id) throws IOException, InterruptedException {
        return endpoint(post(endpointPath(id) + "/pause", null, 200).fields("webhook endpoint"));
    }

    @Override
    public WebhookEndpoint resumeWebhookEndpoint(String id) throws IOException, InterruptedException {
        return endpoint(post(endpointPath(id) + "/resume", null, 200).fields("webhook endpoint"));
    }

    @Override
    public Recovery recoverWebhookEndpoint(String id, Instant since) throws IOException, InterruptedException {
        Map<String, @Nullable Object> body = new LinkedHashMap<>();
        body.put("since", Objects.requireNonNull(since, "since").toString());
        return Resources.recovery(
                post(endpointPath(id) + "/recover", body, null, 202).fields("recovery"));
    }

    @Override
    public Page<Delivery> listWebhookEndpointDeliveries(String id, int limit, @Nullable String startingAfter)
            throws IOException, InterruptedException {
        return page(
                get(listPath(endpointPath(id) + "/deliveries", limit, startingAfter))
                        .fields("list of deliveries"),
                "delivery",
                Resources::delivery);
    }

    @Override
    public DeliveryDetail getDelivery(String id) throws IOException, InterruptedException {
        return Resources.deliveryDetail(get("/v1/deliveries/" + segment(id)).fields("delivery"));
    }

    @Override
    public Delivery retryDelivery(String id) throws IOException, InterruptedException {
        return delivery(
                post("/v1/deliveries/" + segment(id) + "/retry", null, 202).fields("delivery"));
    }

    @Override
    public WebhookAttemptStats getWebhookAttemptStats(int hours) throws IOException, InterruptedException {
        if (hours < 1 || hours > MAX_STATS_HOURS) {
            throw new IllegalArgumentException("hours must be 1.." + MAX_STATS_HOURS + ", was " + hours);
        }
        return Resources.attemptStats(
                get("/v1/webhook_attempt_stats?hours=" + hours).fields("attempt statistics"));
    }

    @Override
    public Page<Event> listEvents(@Nullable String type, int limit, @Nullable String startingAfter)
            throws IOException, InterruptedException {
        String path = listPath("/v1/events", limit, startingAfter) + (type == null ? "" : "&type=" + segment(type));
        return page(get(path).fields("list of events"), "event", Resources::event);
    }

    @Override
    public Event getEvent(String id) throws IOException, InterruptedException {
        return event(get("/v1/events/" + segment(id)).fields("event"));
    }

    @Override
    public Page<Delivery> listEventDeliveries(String eventId) throws IOException, InterruptedException {
        return eventDeliveries("/v1/events/" + segment(eventId) + "/deliveries");
    }

    @Override
    public Page<Delivery> listEventDeliveries(String eventId, int limit, @Nullable String startingAfter)
            throws IOException, InterruptedException {
        return eventDeliveries(listPath("/v1/events/" + segment(eventId) + "/deliveries", limit, startingAfter));
    }

    private Page<Delivery> eventDeliveries(String path) throws IOException, InterruptedException {
        return page(get(path).fields("list of deliveries"), "delivery", Resources::delivery);
    }

    @Override
    public RateLimitStatus getRateLimits() throws IOException, InterruptedException {
        return Resources.rateLimits(get("/v1/rate_limit").fields("rate-limit budgets"));
    }

    private static String endpointPath(String id) {
        return "/v1/webhook_endpoints/" + segment(id);
    }

    @Override
    public RetryingHttpClient http() {
        return http;
    }

    @Override
    public void close() {
        if (ownsHttp) {
            http.close();
        }
    }

    // ---- requests

    /** An answer with the expected status, and its body. */
    private record Answer(CallResult<String> result) {
        JsonFields fields(String what) throws IOException {
            return JsonFields.parse(result.body(), what);
        }
    }

    private Answer get(String path) throws IOException, InterruptedException {
        return send("GET", uri(path), null, null, 200);
    }

    private Answer post(String path, Map<String, @Nullable Object> body, @Nullable String idempotencyKey, int expected)
            throws IOException, InterruptedException {
        return send("POST", uri(path), Json.write(body), idempotencyKey, expected);
    }

    /** A {@code POST} without a body (an action on a resource), with a generated key. */
    private Answer post(String path, @Nullable String idempotencyKey, int expected)
            throws IOException, InterruptedException {
        return send("POST", uri(path), null, idempotencyKey, expected);
    }

    private Answer send(String method, URI uri, @Nullable String json, @Nullable String idempotencyKey, int... expected)
            throws IOException, InterruptedException {
        CallResult<String> result = http.send(
                request(method, uri, json, idempotencyKey), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        String path = uri.getRawPath();
        for (int status : expected) {
            if (result.statusCode() == status) {
                return new Answer(result);
            }
        }
        throw apiException(method, path, result, result.body());
    }

    private HttpRequest request(String method, URI uri, @Nullable String json, @Nullable String idempotencyKey) {
        HttpRequest.Builder b = HttpRequest.newBuilder(uri)
                .timeout(requestTimeout)
                .header("Authorization", authorization)
                .header("Accept", "application/json")
                .method(
                        method,
                        json == null
                                ? HttpRequest.BodyPublishers.noBody()
                                : HttpRequest.BodyPublishers.ofString(json, StandardCharsets.UTF_8));
        if (json != null) {
            b.header("Content-Type", "application/json; charset=utf-8");
        }
        if (idempotencyKey != null) {
            b.header(Execution.IDEMPOTENCY_KEY, idempotencyKey);
        }
        return b.build();
    }

    private static ApiException apiException(String method, String path, CallResult<?> result, String body) {
        Problem problem = null;
        try {
            JsonFields f = JsonFields.parse(body, "problem");
            String type = f.optString("type");
            String title = f.optString("title");
            if (type != null || title != null) {
                problem = new Problem(
                        type == null ? "about:blank" : type,
                        title == null ? "" : title,
                        result.statusCode(),
                        f.optString("detail"),
                        f.members());
            }
        } catch (IOException e) {
            problem = null; // not a problem document: the status alone speaks
        }
        return new ApiException(method, path, result.statusCode(), problem, result.attempts());
    }

    private URI uri(String path) {
        return baseUri.resolve(path);
    }

    private static String listPath(String path, int limit, @Nullable String startingAfter) {
        if (limit < 1 || limit > MAX_PAGE_SIZE) {
            throw new IllegalArgumentException("limit must be 1.." + MAX_PAGE_SIZE + ", was " + limit);
        }
        return path + "?limit=" + limit + (startingAfter == null ? "" : "&starting_after=" + segment(startingAfter));
    }

    private static String segment(String id) {
        if (id.isEmpty()) {
            throw new IllegalArgumentException("an id must not be empty");
        }
        return URLEncoder.encode(id, StandardCharsets.UTF_8).replace("+", "%20");
    }

    private static String key(String idempotencyKey) {
        if (idempotencyKey.isEmpty()
                || idempotencyKey.length() > 255
                || !idempotencyKey.chars().allMatch(c -> c >= 0x20 && c < 0x7f)) {
            throw new IllegalArgumentException("idempotencyKey must be 1 to 255 printable ASCII characters");
        }
        return idempotencyKey;
    }

    private Duration pollAfter(HttpResponse<?> response) {
        Duration d = RetryAfterHeader.delay(
                response.headers().allValues(RetryAfterHeader.NAME),
                http.clock().instant());
        return clamp(d == null ? DEFAULT_POLL : d);
    }

    private static Duration clamp(Duration wait) {
        return wait.compareTo(MIN_POLL) < 0 ? MIN_POLL : wait.compareTo(MAX_POLL) > 0 ? MAX_POLL : wait;
    }

    @Override
    public String toString() {
        return "RetrysafeClient[" + baseUri + "]";
    }
}
