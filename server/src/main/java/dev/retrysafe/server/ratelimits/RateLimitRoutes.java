package dev.retrysafe.server.ratelimits;

import dev.retrysafe.ratelimit.Decision;
import dev.retrysafe.ratelimit.PolicyState;
import dev.retrysafe.server.http.Responses;
import dev.retrysafe.servlet.RateLimitFilter;
import io.javalin.http.Context;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** {@code GET /v1/rate_limit}: the caller's budget under every policy. Threadsafe. */
public final class RateLimitRoutes {

    private final boolean enabled;

    /** The route; {@code enabled} is false when rate limits are off. */
    public RateLimitRoutes(boolean enabled) {
        this.enabled = enabled;
    }

    /**
     * Every enforced policy that applies to the caller (shadow ones are not shown), with its budget as the filter peeked it (this
     * request spent nothing): {@code {"enabled": true, "policies": [{name, scope, algorithm,
     * limit, window_seconds, remaining, used, reset_seconds, reset_at, known}]}}.
     */
    public void budgets(Context ctx) {
        List<Map<String, Object>> policies = new ArrayList<>();
        if (ctx.req().getAttribute(RateLimitFilter.DECISION_ATTRIBUTE) instanceof Decision decision) {
            for (PolicyState state : decision.states()) {
                if (!state.policy().shadow()) { // a limit on trial is not the client's business
                    policies.add(describe(state));
                }
            }
        }
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("enabled", enabled);
        body.put("policies", policies);
        Responses.json(ctx, 200, body);
    }

    private static Map<String, Object> describe(PolicyState state) {
        Map<String, Object> p = new LinkedHashMap<>();
        p.put("name", state.policy().name());
        p.put("scope", state.policy().scope().id());
        p.put("algorithm", state.policy().algorithm().configName());
        p.put("limit", state.limit());
        long millis = state.policy().window().toMillis();
        p.put("window_seconds", millis % 1000 == 0 ? (Object) (millis / 1000) : (Object) (millis / 1000.0));
        p.put("known", state.known());
        if (state.known()) {
            p.put("remaining", state.remaining());
            p.put("used", state.used());
            p.put("reset_seconds", state.resetSeconds());
            p.put("reset_at", Instant.ofEpochSecond(state.resetEpochSeconds()).toString());
        }
        return p;
    }
}
