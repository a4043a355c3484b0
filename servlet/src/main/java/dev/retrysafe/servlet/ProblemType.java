package dev.retrysafe.servlet;

/**
 * The problems (RFC 9457) that {@link IdempotencyFilter}, {@link RateLimitFilter} and
 * {@link WebhookReceiverFilter} answer with. Each one's {@code type} is
 * the filter's problem type base followed by {@link #slug()}, e.g.
 * {@code /problems/idempotency-key-in-use}; a server should serve a readable page at each. This
 * enum is immutable and threadsafe.
 */
public enum ProblemType {

    /** A route that requires a key got none. */
    IDEMPOTENCY_KEY_MISSING("idempotency-key-missing", 400, "Idempotency-Key required", false),
    /** The key is not 1 to 255 printable ASCII characters, bare or as a quoted sf-string. */
    IDEMPOTENCY_KEY_INVALID("idempotency-key-invalid", 400, "Idempotency-Key invalid", false),
    /** Another request with the same key is still running; retry after {@code Retry-After}. */
    IDEMPOTENCY_KEY_IN_USE("idempotency-key-in-use", 409, "Idempotency-Key in use", true),
    /** The key was already used for a different request (another method, route or body). */
    IDEMPOTENCY_KEY_REUSED("idempotency-key-reused", 422, "Idempotency-Key reused", false),
    /** The body is larger than the filter accepts. */
    REQUEST_TOO_LARGE("request-too-large", 413, "Request body too large", false),
    /**
     * The body did not arrive within the deadline or fell under the minimum rate; nothing was
     * done, and the connection is closed.
     */
    BODY_TIMEOUT("request-body-timeout", 408, "Request body too slow", true),
    /**
     * The body could not be read: its framing is broken (a malformed chunk) or the connection
     * ended before it was complete; nothing was done, and the connection is closed.
     */
    BODY_UNREADABLE("request-body-unreadable", 400, "Request body unreadable", false),
    /**
     * The server holds as many request bodies in memory as it allows; nothing was done; retry
     * after {@code Retry-After}.
     */
    SERVER_BUSY("server-busy", 503, "Server busy", true),
    /**
     * The API key or client address already has as many requests in flight as it may; nothing
     * was done or spent; retry after {@code Retry-After}, or send fewer requests at once.
     */
    TOO_MANY_IN_FLIGHT("too-many-in-flight", 429, "Too many requests in flight", true),
    /** A rate-limit policy refused the request; nothing was spent; retry after {@code Retry-After}. */
    RATE_LIMITED("rate-limited", 429, "Too many requests", true),
    /**
     * A concurrency limit refused the request: its key already has as many requests in flight as
     * the policy allows; nothing was done or spent; retry after {@code Retry-After}.
     */
    CONCURRENCY_LIMITED("concurrency-limited", 429, "Concurrency limit reached", true),
    /** The rate-limit counters cannot be reached and a fail-closed policy applies. */
    RATE_LIMIT_UNAVAILABLE("rate-limit-unavailable", 503, "Rate limits unavailable", true),
    /** A webhook delivery failed verification (signature, timestamp or headers). */
    WEBHOOK_REJECTED("webhook-rejected", 400, "Webhook rejected", false),
    /**
     * The database (the idempotency store, the request's transaction) cannot be reached; nothing
     * was done and the key is free; retry after {@code Retry-After}.
     */
    SERVICE_UNAVAILABLE("service-unavailable", 503, "Service unavailable", true),
    /**
     * This instance is overloaded and sheds requests of the priority named in the problem, lowest
     * first ({@link LoadShedder}); nothing was done or spent; retry after {@code Retry-After}.
     */
    OVERLOADED("overloaded", 503, "Server overloaded", true),
    /** The operation failed unexpectedly; its effects were rolled back and the key released. */
    INTERNAL_ERROR("internal-error", 500, "Internal error", true);

    private final String slug;
    private final int status;
    private final String title;
    private final boolean retryable;

    ProblemType(String slug, int status, String title, boolean retryable) {
        this.slug = slug;
        this.status = status;
        this.title = title;
        this.retryable = retryable;
    }

    /** The last path segment of the problem's {@code type} URI, e.g. {@code idempotency-key-in-use}. */
    public String slug() {
        return slug;
    }

    /** The HTTP status answered with this problem. */
    public int status() {
        return status;
    }

    /** The problem's short, human-readable {@code title}, the same for every occurrence. */
    public String title() {
        return title;
    }

    /** Whether retrying the same request unchanged may succeed (the {@code retryable} member). */
    public boolean retryable() {
        return retryable;
    }

    /** The problem's {@code type} URI under {@code base}, e.g. {@code /problems/} + slug. */
    public String type(String base) {
        return base + slug;
    }
}
