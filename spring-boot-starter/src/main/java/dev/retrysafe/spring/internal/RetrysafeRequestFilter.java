package dev.retrysafe.spring.internal;

import dev.retrysafe.servlet.IdempotencyFilter;
import dev.retrysafe.servlet.RequestDecisions;
import dev.retrysafe.spring.RateLimited;
import dev.retrysafe.spring.RetrysafeRateLimitedException;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Retrysafe's decisions for the requests whose handler method is {@code @Idempotent} or
 * {@code @RateLimited}, in the order {@link RequestDecisions} makes them; every other request
 * passes untouched. A rate-limit refusal goes on to the {@code DispatcherServlet}, which answers
 * it as a {@code ProblemDetail} ({@link MvcRefusals}); nothing else of the request runs. Installed after the application's security filters, so that the caller is
 * known. Threadsafe.
 */
public final class RetrysafeRequestFilter extends OncePerRequestFilter {

    private final HandlerLookup lookup;
    private final @Nullable IdempotencyFilter idempotency;
    private final @Nullable RateLimitFilters rateLimits;
    private final Map<List<String>, RequestDecisions> decisions = new ConcurrentHashMap<>();

    /**
     * Decides with {@code idempotency} (built with {@link #idempotentRoutes}) and
     * {@code rateLimits}, either of which may be off.
     */
    public RetrysafeRequestFilter(
            HandlerLookup lookup, @Nullable IdempotencyFilter idempotency, @Nullable RateLimitFilters rateLimits) {
        this.lookup = lookup;
        this.idempotency = idempotency;
        this.rateLimits = rateLimits;
    }

    /** The idempotent route of a request: its handler's pattern, if its handler is {@code @Idempotent}. */
    public static IdempotencyFilter.@Nullable Route idempotentRoute(HandlerLookup lookup, HttpServletRequest request) {
        HandlerRoute route = lookup.route(request);
        return route == null || route.idempotent() == null
                ? null
                : new IdempotencyFilter.Route(
                        route.pattern(), route.idempotent().keyRequired());
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        HandlerRoute route = lookup.route(request);
        if (route == null || !route.annotated()) {
            chain.doFilter(request, response);
            return;
        }
        RateLimited limited = route.rateLimited();
        List<String> policies = limited == null || rateLimits == null ? List.of() : List.of(limited.value());
        decisions.computeIfAbsent(policies, this::decisions).handle(request, response, chain::doFilter);
        RetrysafeRateLimitedException refused = MvcRefusals.refusal(request);
        if (refused != null) {
            // refused before anything ran: the DispatcherServlet's exception resolvers answer it
            chain.doFilter(request, response);
        }
    }

    private RequestDecisions decisions(List<String> policies) {
        RequestDecisions.Builder builder = RequestDecisions.builder();
        if (!policies.isEmpty() && rateLimits != null) {
            builder.rateLimits(rateLimits.forPolicies(policies));
        }
        if (idempotency != null) {
            builder.idempotency(idempotency);
        }
        return builder.build();
    }
}
