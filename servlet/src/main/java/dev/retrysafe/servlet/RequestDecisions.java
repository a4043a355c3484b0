package dev.retrysafe.servlet;

import dev.retrysafe.servlet.internal.Admission;
import dev.retrysafe.servlet.internal.HttpOnly;
import dev.retrysafe.servlet.internal.IdempotencyHandler;
import dev.retrysafe.servlet.internal.RateLimitHandler;
import dev.retrysafe.servlet.internal.RequestBodyHandler;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import org.jspecify.annotations.Nullable;

/**
 * Every decision Retrysafe makes about one request, in the order it makes them, as one filter
 * and as one method a framework integration can call around its own handler. This class is
 * threadsafe.
 *
 * <p>Who is calling is the application's business, settled before: each part reads it from the
 * request through the function it was built with ({@code facts} for rate limits, {@code scope}
 * for idempotency). Then, in {@link #handle}:
 *
 * <ol>
 *   <li><b>Rate limit</b> ({@link RateLimitFilter}): the request is charged as it arrives, before
 *       its body can cost anything, then takes a slot under each concurrency limit; a refusal
 *       ({@code 429}, or {@code 503} when a fail-closed policy cannot be checked) is answered
 *       here and nothing else runs. The slots are given back when the request has ended, after
 *       every later step, however it ended.</li>
 *   <li><b>Body</b> ({@link RequestBodyFilter}): read into memory within its size, time and
 *       memory bounds ({@code 413}, {@code 408}, {@code 503}).</li>
 *   <li><b>Key</b> ({@link IdempotencyFilter}): on a route that takes one, a missing or malformed
 *       {@code Idempotency-Key} answers {@code 400}.</li>
 *   <li><b>Lookup and claim</b>: a key already answered is replayed, one still running answers
 *       {@code 409}, and both are given their charge back; a key reused with another request
 *       answers {@code 422} and stays charged.</li>
 *   <li><b>Run</b>: the operation runs in a transaction bound to the request
 *       ({@link RequestTransaction}).</li>
 *   <li><b>Store</b>: an answer below 500 is stored in that transaction, which commits, and only
 *       then is sent; a 5xx or an exception rolls everything back and lets the key go.</li>
 * </ol>
 *
 * <p>Each part is optional. The three filters can also be installed one by one, with the
 * application's own filters between them (the Retrysafe server puts its {@code 401} between the
 * rate limit and the body); installed in this order they decide exactly as this class does.
 *
 * <pre>{@code
 * RequestDecisions decisions = RequestDecisions.builder()
 *         .rateLimits(rateLimitFilter)
 *         .bodies(requestBodyFilter)
 *         .idempotency(idempotencyFilter)
 *         .build();
 * // as a filter, after authentication:
 * context.addFilter(new FilterHolder(decisions), "/*", EnumSet.of(DispatcherType.REQUEST));
 * // or around a framework's handler:
 * decisions.handle(request, response, (req, res) -> invokeController(req, res));
 * }</pre>
 */
public final class RequestDecisions implements Filter {

    /** What runs once every decision has let the request through: the application's handler. */
    @FunctionalInterface
    public interface Operation {
        /**
         * Handles {@code request}, whose body can be read again from memory, answering on
         * {@code response} (buffered until the transaction has committed, for a keyed request).
         */
        void run(HttpServletRequest request, HttpServletResponse response) throws IOException, ServletException;
    }

    private final @Nullable RateLimitHandler rateLimits;
    private final @Nullable RequestBodyHandler bodies;
    private final @Nullable IdempotencyHandler idempotency;

    private RequestDecisions(Builder builder) {
        this.rateLimits = builder.rateLimits == null ? null : builder.rateLimits.handler();
        this.bodies = builder.bodies == null ? null : builder.bodies.handler();
        this.idempotency = builder.idempotency == null ? null : builder.idempotency.handler();
    }

    /** A new builder. */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Decides about {@code request} in the order of this class's description and runs
     * {@code operation} if every step lets it through; whatever a step refuses is answered on
     * {@code response}.
     */
    public void handle(HttpServletRequest request, HttpServletResponse response, Operation operation)
            throws IOException, ServletException {
        Admission admission = rateLimits == null ? Admission.FREE : rateLimits.admit(request, response);
        if (admission == null) {
            return; // refused and answered
        }
        RateLimitHandler.proceed(request, admission, () -> {
            if (bodies == null) {
                keyedOrNot(request, response, null, admission, operation);
            } else {
                bodies.read(
                        request,
                        response,
                        (withBody, body) -> keyedOrNot(withBody, response, body, admission, operation));
            }
        });
    }

    private void keyedOrNot(
            HttpServletRequest request,
            HttpServletResponse response,
            byte @Nullable [] body,
            Admission admission,
            Operation operation)
            throws IOException, ServletException {
        if (idempotency == null) {
            operation.run(request, response);
        } else {
            idempotency.handle(request, response, body, admission, operation);
        }
    }

    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        HttpOnly.filter(
                request,
                response,
                chain,
                (httpRequest, httpResponse, next) -> handle(httpRequest, httpResponse, next::doFilter));
    }

    /** Builds {@link RequestDecisions} from configured parts. Not threadsafe; the built object is immutable. */
    public static final class Builder {
        private @Nullable RateLimitFilter rateLimits;
        private @Nullable RequestBodyFilter bodies;
        private @Nullable IdempotencyFilter idempotency;

        private Builder() {}

        /** The rate limits, the first decision (default: none). */
        public Builder rateLimits(RateLimitFilter filter) {
            this.rateLimits = filter;
            return this;
        }

        /** How bodies are read, after the rate limit (default: not read ahead; the idempotency step reads its own). */
        public Builder bodies(RequestBodyFilter filter) {
            this.bodies = filter;
            return this;
        }

        /** The idempotency keys, last before the operation (default: none). */
        public Builder idempotency(IdempotencyFilter filter) {
            this.idempotency = filter;
            return this;
        }

        /** The decisions. */
        public RequestDecisions build() {
            return new RequestDecisions(this);
        }
    }
}
