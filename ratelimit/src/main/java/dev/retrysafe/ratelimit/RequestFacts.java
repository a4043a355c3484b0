package dev.retrysafe.ratelimit;

import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * What a policy's scope may key on, for one request. An unauthenticated request has no API key
 * and no account; a request outside every route group has no route group.
 *
 * @param apiKeyId   the id of the API key that authenticated the request (never the key itself)
 * @param accountId  the account the request acts for
 * @param ip         the client's address
 * @param routeGroup the group of routes the request belongs to (for example {@code reports})
 * @param plan       the account's plan, which scales quotas (see {@link Plans})
 * @param cost       what the route costs, in units of budget (1 for most routes)
 * @param accountCreatedAt when the account was created, which decides the {@link PolicySet} it
 *                   is on ({@link PolicyVersions}); {@code null} when unknown (the current set)
 * @param rateLimitVersion the policy set the account is pinned to, or {@code null}
 */
public record RequestFacts(
        @Nullable String apiKeyId,
        @Nullable String accountId,
        @Nullable String ip,
        @Nullable String routeGroup,
        @Nullable String plan,
        long cost,
        @Nullable Instant accountCreatedAt,
        @Nullable String rateLimitVersion) {

    public RequestFacts {
        if (cost < 1) {
            throw new IllegalArgumentException("cost must be at least 1: " + cost);
        }
    }

    /** Facts without versioning: the account's creation time unknown, no pinned set. */
    public RequestFacts(
            @Nullable String apiKeyId,
            @Nullable String accountId,
            @Nullable String ip,
            @Nullable String routeGroup,
            @Nullable String plan,
            long cost) {
        this(apiKeyId, accountId, ip, routeGroup, plan, cost, null, null);
    }

    /**
     * The partition every counter of this request lives in: the account, or the client address
     * for unauthenticated requests. A Redis store uses it as the hash tag, so one script can
     * touch all of a request's counters on Redis Cluster.
     */
    public String partition() {
        if (accountId != null) {
            return "a:" + accountId;
        }
        return "ip:" + (ip == null ? "unknown" : ip);
    }
}
