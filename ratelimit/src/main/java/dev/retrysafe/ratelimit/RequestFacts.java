package dev.retrysafe.ratelimit;

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
 */
public record RequestFacts(
        @Nullable String apiKeyId,
        @Nullable String accountId,
        @Nullable String ip,
        @Nullable String routeGroup,
        @Nullable String plan,
        long cost) {

    public RequestFacts {
        if (cost < 1) {
            throw new IllegalArgumentException("cost must be at least 1: " + cost);
        }
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
