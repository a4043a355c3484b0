package dev.retrysafe.server.http;

import dev.retrysafe.server.accounts.Account;
import dev.retrysafe.server.accounts.AccountStore;
import dev.retrysafe.server.accounts.ApiKeys;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.sql.SQLException;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Authenticates every request under {@code /v1/} by its {@code Authorization: Bearer <key>}
 * header and puts the {@link Account} and the key's id on the request ({@link RequestAccount}).
 * A missing or unknown key is not answered here but noted on the request, so that the rate limit
 * for unauthenticated callers counts it first; {@link AccountRequired}, placed after the rate
 * limit, answers it {@code 401} with {@code WWW-Authenticate: Bearer}. Keys are never logged.
 * This class is threadsafe.
 */
public final class AuthFilter implements Filter {

    private static final Logger LOG = LoggerFactory.getLogger(AuthFilter.class);
    /** Request attribute: why a request under /v1/ is not authenticated (its 401's detail). */
    static final String FAILURE_ATTRIBUTE = "dev.retrysafe.server.auth-failure";
    /** Bounds the memory of the cache below; beyond it the cache starts over. */
    private static final int CACHE_LIMIT = 10_000;

    private final AccountStore accounts;
    /**
     * Key hash to account. Safe to cache because a key never moves to another account and keys are
     * not revoked yet; it saves a database round trip per request. Revocation must clear it.
     */
    private final Map<String, Account> cache = new ConcurrentHashMap<>();

    /** A filter looking keys up in {@code accounts}. */
    public AuthFilter(AccountStore accounts) {
        this.accounts = accounts;
    }

    @Override
    public void doFilter(ServletRequest req, ServletResponse res, FilterChain chain)
            throws IOException, ServletException {
        HttpServletRequest request = (HttpServletRequest) req;
        HttpServletResponse response = (HttpServletResponse) res;
        if (!request.getRequestURI().startsWith("/v1/")
                && !request.getRequestURI().equals("/v1")) {
            chain.doFilter(req, res);
            return;
        }
        String key = bearerToken(request.getHeader("Authorization"));
        if (key == null) {
            request.setAttribute(FAILURE_ATTRIBUTE, "Send your API key as 'Authorization: Bearer <key>'.");
            chain.doFilter(req, res);
            return;
        }
        String hash = ApiKeys.hash(key);
        Optional<Account> account;
        try {
            account = lookUp(hash);
        } catch (SQLException e) {
            LOG.warn("cannot check an API key: database unavailable: {}", e.toString());
            Problems.respond(
                    response,
                    Problem.of(
                                    ProblemType.SERVICE_UNAVAILABLE,
                                    "The API key cannot be checked right now because the database is unavailable.")
                            .with("retryable", true)
                            .withHeader("Retry-After", "1"));
            return;
        }
        if (account.isEmpty()) {
            request.setAttribute(FAILURE_ATTRIBUTE, "The API key is not valid.");
        } else {
            request.setAttribute(RequestAccount.ATTRIBUTE, account.get());
            // a prefix of the key's SHA-256: names the key for rate limits without being a secret
            request.setAttribute(RequestAccount.KEY_ID_ATTRIBUTE, "key_" + hash.substring(0, 16));
        }
        chain.doFilter(req, res);
    }

    /**
     * The account whose key is {@code key}, for a caller that got the key another way than the
     * header (a stream's {@code auth} message); the same cache and the same lookup as a request.
     */
    public Optional<Account> authenticate(String key) throws SQLException {
        return lookUp(ApiKeys.hash(key));
    }

    private Optional<Account> lookUp(String hash) throws SQLException {
        Account cached = cache.get(hash);
        if (cached != null) {
            return Optional.of(cached);
        }
        Optional<Account> found = accounts.findByKeyHash(hash);
        if (found.isPresent()) {
            if (cache.size() >= CACHE_LIMIT) {
                cache.clear();
            }
            cache.put(hash, found.get());
        }
        return found;
    }

    /** The token of a {@code Bearer} credential (scheme case-insensitive, RFC 9110), or {@code null}. */
    static @Nullable String bearerToken(@Nullable String header) {
        if (header == null) {
            return null;
        }
        String h = header.strip();
        if (h.length() < 7 || !h.substring(0, 7).toLowerCase(Locale.ROOT).equals("bearer ")) {
            return null;
        }
        String token = h.substring(7).strip();
        return token.isEmpty() ? null : token;
    }
}
