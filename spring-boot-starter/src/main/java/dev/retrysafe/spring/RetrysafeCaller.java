package dev.retrysafe.spring;

import jakarta.servlet.http.HttpServletRequest;
import org.jspecify.annotations.Nullable;

/**
 * Who is calling: the account an idempotency key is scoped to and whose rate-limit budget a
 * request spends. An application bean of this type replaces the default, which is the name of
 * the request's authenticated principal ({@link HttpServletRequest#getUserPrincipal()}, which
 * Spring Security fills in when it is present). Implementations are threadsafe.
 */
@FunctionalInterface
public interface RetrysafeCaller {

    /**
     * The account {@code request} acts for, or {@code null} when it is unauthenticated: then its
     * idempotency key is ignored, and rate limits count it by client address.
     */
    @Nullable
    String account(HttpServletRequest request);
}
