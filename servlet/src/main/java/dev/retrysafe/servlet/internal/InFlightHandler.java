package dev.retrysafe.servlet.internal;

import dev.retrysafe.servlet.InFlightLimitFilter;
import dev.retrysafe.servlet.ProblemType;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The in-flight filter's logic: a count per key of each bound, taken before the chain runs and
 * given back when it returns; a key whose count drops to zero is forgotten, so memory follows the
 * callers in flight, not all callers ever seen. Threadsafe.
 */
public final class InFlightHandler {

    private final List<Bound> bounds;
    private final String problemTypeBase;

    /** A handler for {@code limits}. */
    public InFlightHandler(List<InFlightLimitFilter.Limit> limits, String problemTypeBase) {
        this.bounds = limits.stream().map(Bound::new).toList();
        this.problemTypeBase = FilterSettings.checkProblemTypeBase(problemTypeBase);
    }

    /** Requests in flight under {@code name} for {@code key}. */
    public int inFlight(String name, String key) {
        for (Bound bound : bounds) {
            if (bound.limit.name().equals(name)) {
                return bound.counts.getOrDefault(key, 0);
            }
        }
        throw new IllegalArgumentException("no such limit: " + name);
    }

    /** Handles one request as the filter documents. */
    public void handle(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        String[] taken = new String[bounds.size()];
        try {
            for (int i = 0; i < bounds.size(); i++) {
                Bound bound = bounds.get(i);
                String key = bound.limit.keyOf().apply(request);
                if (key == null) {
                    continue;
                }
                if (!bound.tryTake(key)) {
                    refuse(request, response, bound.limit);
                    return;
                }
                taken[i] = key;
            }
            chain.doFilter(request, response);
        } finally {
            for (int i = 0; i < taken.length; i++) {
                if (taken[i] != null) {
                    bounds.get(i).giveBack(taken[i]);
                }
            }
        }
    }

    private void refuse(HttpServletRequest request, HttpServletResponse response, InFlightLimitFilter.Limit limit)
            throws IOException {
        BoundedBody.release(request, response, RateLimitHandler.DRAIN_LIMIT);
        Map<String, Object> members = new LinkedHashMap<>();
        members.put("limit", limit.name());
        members.put("max_in_flight", limit.max());
        byte[] body = ProblemJson.render(
                ProblemType.TOO_MANY_IN_FLIGHT,
                problemTypeBase,
                "At most " + limit.max() + " requests per " + limit.name()
                        + " may be in flight at once; wait for one to finish.",
                members);
        response.setStatus(ProblemType.TOO_MANY_IN_FLIGHT.status());
        response.setHeader("Retry-After", "1");
        response.setContentType(ProblemJson.MEDIA_TYPE);
        response.setContentLength(body.length);
        response.getOutputStream().write(body);
    }

    /** A bound and its counts. */
    private static final class Bound {
        final InFlightLimitFilter.Limit limit;
        final ConcurrentHashMap<String, Integer> counts = new ConcurrentHashMap<>();

        Bound(InFlightLimitFilter.Limit limit) {
            this.limit = limit;
        }

        boolean tryTake(String key) {
            boolean[] took = {false};
            counts.compute(key, (k, n) -> {
                int now = n == null ? 0 : n;
                if (now >= limit.max()) {
                    return n;
                }
                took[0] = true;
                return now + 1;
            });
            return took[0];
        }

        void giveBack(String key) {
            counts.computeIfPresent(key, (k, n) -> n <= 1 ? null : n - 1);
        }
    }
}
