package dev.retrysafe.server.ratelimits;

import dev.retrysafe.ratelimit.Decision;
import dev.retrysafe.ratelimit.PolicySet;
import dev.retrysafe.ratelimit.PolicyState;
import dev.retrysafe.ratelimit.PolicyVersions;
import dev.retrysafe.server.accounts.Account;
import dev.retrysafe.server.http.RequestAccount;
import dev.retrysafe.server.http.Responses;
import dev.retrysafe.servlet.RateLimitFilter;
import io.javalin.http.Context;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/** {@code GET /v1/rate_limit}: the caller's budget under every policy. Threadsafe. */
public final class RateLimitRoutes {

    private final boolean enabled;
    private final @Nullable PolicyVersions versions;

    /** The route; {@code enabled} is false when rate limits are off. */
    public RateLimitRoutes(boolean enabled) {
        this(enabled, null);
    }

    /** The route, describing the caller's policy set from {@code versions} (none: unversioned). */
    public RateLimitRoutes(boolean enabled, @Nullable PolicyVersions versions) {
        this.enabled = enabled;
        this.versions = versions;
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
        if (ctx.req().getAttribute(RateLimitFilter.POLICY_SET_ATTRIBUTE) instanceof PolicySet set && versions != null) {
            body.put("policy_set", describe(set, RequestAccount.of(ctx.req())));
        }
        body.put("policies", policies);
        Responses.json(ctx, 200, body);
    }

    /**
     * The caller's set: {@code {version, docs_url, deprecated}} and, on a deprecated set,
     * {@code deprecated_at}, {@code sunset}, the set it moves to ({@code successor}, {@code
     * successor_docs_url}) and when ({@code moves_at}, the sunset).
     */
    private Map<String, Object> describe(PolicySet set, @Nullable Account account) {
        Map<String, Object> p = new LinkedHashMap<>();
        p.put("version", set.version());
        p.put("docs_url", set.docsUrl());
        p.put("deprecated", set.deprecated());
        Instant sunset = set.sunset();
        if (set.deprecatedAt() != null && sunset != null && versions != null) {
            p.put("deprecated_at", set.deprecatedAt().toString());
            p.put("sunset", sunset.toString());
            PolicySet next = versions.successor(
                    set,
                    account == null ? null : account.createdAt(),
                    account == null ? null : account.rateLimitVersion());
            if (next != null) {
                p.put("successor", next.version());
                p.put("successor_docs_url", next.docsUrl());
                p.put("moves_at", sunset.toString());
            }
        }
        return p;
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
