package dev.retrysafe.servlet;

import dev.retrysafe.ratelimit.HeaderField;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A request the {@link RateLimitFilter} refuses, as it would answer it: a {@code 429} (or a
 * {@code 503} when a fail-closed policy cannot be checked) problem with its headers. A framework
 * that renders errors its own way (Spring MVC's {@code ProblemDetail}) takes it through a
 * {@link Writer} ({@link RateLimitFilter.Builder#refusals}) and answers it itself. Immutable and
 * threadsafe.
 *
 * @param type              {@link ProblemType#RATE_LIMITED} or {@link ProblemType#RATE_LIMIT_UNAVAILABLE}
 * @param typeUri           the problem's {@code type}: the filter's problem type base and the slug
 * @param detail            the problem's {@code detail}: the policy, its quota and the wait
 * @param policy            the policy that refused, or the fail-closed one that could not be checked
 * @param retryAfterSeconds the {@code Retry-After}, at least 1
 * @param members           the problem's members after {@code retryable}, in order: {@code policy}
 *                          (429 only) and {@code retry_after}
 * @param headers           the budget headers and {@code Retry-After}, already set on the response
 */
public record RateLimitRefusal(
        ProblemType type,
        String typeUri,
        String detail,
        String policy,
        long retryAfterSeconds,
        Map<String, Object> members,
        List<HeaderField> headers) {

    /** Copies the collections. */
    public RateLimitRefusal {
        members = Collections.unmodifiableMap(new LinkedHashMap<>(members));
        headers = List.copyOf(headers);
    }

    /** Answers a refusal; the request goes no further through the filter. */
    @FunctionalInterface
    public interface Writer {
        /**
         * Answers {@code refusal} on {@code response}, whose headers are set and whose request's
         * body was read and dropped (up to 64 KiB; a longer one set {@code Connection: close}).
         */
        void write(HttpServletRequest request, HttpServletResponse response, RateLimitRefusal refusal)
                throws IOException;
    }
}
