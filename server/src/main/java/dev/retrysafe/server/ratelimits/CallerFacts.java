package dev.retrysafe.server.ratelimits;

import dev.retrysafe.ratelimit.RequestFacts;
import dev.retrysafe.server.accounts.Account;
import dev.retrysafe.server.http.RequestAccount;
import jakarta.servlet.http.HttpServletRequest;
import org.jspecify.annotations.Nullable;

/**
 * What the rate-limit policies key on, read from a request after authentication. Only the API
 * under {@code /v1/} is limited; probes, problem pages and documents are not, so a load
 * balancer's health checks never run into a limit.
 */
final class CallerFacts {

    /** The route group of {@code POST /v1/reports} and everything under it. */
    static final String REPORTS = "reports";

    private CallerFacts() {}

    static @Nullable RequestFacts of(HttpServletRequest request) {
        String path = request.getRequestURI();
        if (!path.startsWith("/v1/") && !path.equals("/v1")) {
            return null;
        }
        Account account = RequestAccount.of(request);
        return new RequestFacts(
                RequestAccount.keyIdOf(request),
                account == null ? null : account.id(),
                request.getRemoteAddr(),
                routeGroup(path),
                account == null ? null : account.plan(),
                1,
                account == null ? null : account.createdAt(),
                account == null ? null : account.rateLimitVersion());
    }

    static @Nullable String routeGroup(String path) {
        return path.equals("/v1/reports") || path.startsWith("/v1/reports/") ? REPORTS : null;
    }

    /** {@code GET} (or {@code HEAD}) {@code /v1/rate_limit}: reports budgets and spends none. */
    static boolean isBudgetReport(HttpServletRequest request) {
        String path = request.getRequestURI();
        return (path.equals("/v1/rate_limit") || path.equals("/v1/rate_limit/"))
                && (request.getMethod().equals("GET") || request.getMethod().equals("HEAD"));
    }
}
