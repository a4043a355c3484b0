package dev.retrysafe.servlet;

import dev.retrysafe.servlet.internal.HttpOnly;
import dev.retrysafe.servlet.internal.InFlightHandler;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Bounds the requests one caller may have in flight at once in this process: per API key, per
 * client address, per whatever a {@link #builder() limit} names. A request over any bound answers
 * {@code 429} {@link ProblemType#TOO_MANY_IN_FLIGHT} with {@code Retry-After: 1} before anything
 * else is done for it, and spends no rate-limit budget (put this filter before the
 * {@link RateLimitFilter}). A rate limit counts requests over time; this counts the ones running
 * now, so that a client holding many slow requests open (a body that trickles in) cannot take
 * more threads and buffers than its share. This class is threadsafe.
 *
 * <pre>{@code
 * InFlightLimitFilter filter = InFlightLimitFilter.builder()
 *         .limit("api_key", 64, request -> (String) request.getAttribute("keyId"))
 *         .limit("address", 256, ServletRequest::getRemoteAddr)
 *         .build();
 * }</pre>
 */
public final class InFlightLimitFilter implements Filter {

    private final InFlightHandler handler;

    private InFlightLimitFilter(Builder builder) {
        this.handler = new InFlightHandler(builder.limits, builder.problemTypeBase);
    }

    /** A new builder. */
    public static Builder builder() {
        return new Builder();
    }

    /** Requests in flight now under limit {@code name} for {@code key} (0 when none), for tests and metrics. */
    public int inFlight(String name, String key) {
        return handler.inFlight(name, key);
    }

    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        HttpOnly.filter(request, response, chain, handler::handle);
    }

    /**
     * One bound: at most {@code max} requests in flight for each key {@code keyOf} gives.
     *
     * @param name  names the bound in problems and metrics, e.g. {@code api_key}
     * @param max   requests in flight per key, at least 1
     * @param keyOf the request's key under this bound, or {@code null} when it does not apply
     */
    public record Limit(String name, int max, Function<HttpServletRequest, @Nullable String> keyOf) {
        /** Checks the values. */
        public Limit {
            if (name.isBlank()) {
                throw new IllegalArgumentException("name must not be blank");
            }
            if (max < 1) {
                throw new IllegalArgumentException("max of " + name + " must be at least 1: " + max);
            }
        }
    }

    /** Builds an {@link InFlightLimitFilter}. Not threadsafe; the built filter is immutable. */
    public static final class Builder {
        private final List<Limit> limits = new ArrayList<>();
        private String problemTypeBase = "/problems/";

        private Builder() {}

        /** Adds a bound (see {@link Limit}); checked in the order added. */
        public Builder limit(String name, int max, Function<HttpServletRequest, @Nullable String> keyOf) {
            Limit limit = new Limit(name, max, keyOf);
            if (limits.stream().anyMatch(l -> l.name().equals(name))) {
                throw new IllegalArgumentException("limit already added: " + name);
            }
            limits.add(limit);
            return this;
        }

        /** Prefix of problem {@code type} URIs (default {@code /problems/}). */
        public Builder problemTypeBase(String base) {
            this.problemTypeBase = base;
            return this;
        }

        /** The filter. */
        public InFlightLimitFilter build() {
            return new InFlightLimitFilter(this);
        }
    }
}
