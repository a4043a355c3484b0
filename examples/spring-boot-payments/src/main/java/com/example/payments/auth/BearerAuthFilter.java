package com.example.payments.auth;

import com.example.payments.api.Problems;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.Optional;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.stereotype.Component;
import org.springframework.web.filter.OncePerRequestFilter;
import tools.jackson.databind.json.JsonMapper;

/**
 * Requires a known API key on every request under {@code /v1/}: a missing or unknown key is
 * answered {@code 401} with {@code WWW-Authenticate: Bearer}, before anything else runs; a known
 * one puts its account on the request ({@link CurrentAccount}). Threadsafe.
 */
@Component
@Order(Ordered.HIGHEST_PRECEDENCE + 10)
class BearerAuthFilter extends OncePerRequestFilter {

    private final ApiKeys keys;
    private final JsonMapper json;

    BearerAuthFilter(ApiKeys keys, JsonMapper json) {
        this.keys = keys;
        this.json = json;
    }

    @Override
    protected boolean shouldNotFilter(HttpServletRequest request) {
        String path = request.getRequestURI();
        return !path.equals("/v1") && !path.startsWith("/v1/");
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        String header = request.getHeader("Authorization");
        Optional<String> account = keys.accountOfHeader(header);
        if (account.isEmpty()) {
            unauthorized(
                    response,
                    ApiKeys.bearerToken(header) == null
                            ? "Send your API key as 'Authorization: Bearer <key>'."
                            : "The API key is not valid.");
            return;
        }
        request.setAttribute(CurrentAccount.ATTRIBUTE, account.get());
        chain.doFilter(request, response);
    }

    private void unauthorized(HttpServletResponse response, String detail) throws IOException {
        ProblemDetail problem =
                Problems.of(HttpStatus.UNAUTHORIZED, "unauthorized", "Authentication required", detail, false);
        byte[] body = json.writeValueAsBytes(Problems.members(problem));
        response.setStatus(HttpStatus.UNAUTHORIZED.value());
        response.setHeader("WWW-Authenticate", "Bearer");
        response.setContentType(MediaType.APPLICATION_PROBLEM_JSON_VALUE);
        response.setContentLength(body.length);
        response.getOutputStream().write(body);
    }
}
