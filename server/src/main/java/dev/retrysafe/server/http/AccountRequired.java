package dev.retrysafe.server.http;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.Set;

/**
 * Answers {@code 401} for a request under {@code /v1/} that the {@link AuthFilter} could not
 * authenticate; a request it authenticated (or one outside {@code /v1/}) passes. It comes after
 * the rate limit, so that guessing keys is limited by address. A request to one of the in-band
 * paths without any {@code Authorization} header passes too: a browser cannot set headers on a
 * WebSocket upgrade, so those paths take the key in a message and check it themselves. A wrong
 * key in the header is refused there as everywhere. This class is threadsafe.
 */
public final class AccountRequired implements Filter {

    private final Set<String> inBand;

    /** A filter that lets {@code inBandPaths} check a key sent in a message themselves. */
    public AccountRequired(String... inBandPaths) {
        this.inBand = Set.of(inBandPaths);
    }

    @Override
    public void doFilter(ServletRequest req, ServletResponse res, FilterChain chain)
            throws IOException, ServletException {
        Object failure = req.getAttribute(AuthFilter.FAILURE_ATTRIBUTE);
        HttpServletRequest request = (HttpServletRequest) req;
        boolean keyInBand = inBand.contains(request.getRequestURI()) && request.getHeader("Authorization") == null;
        if (failure != null && RequestAccount.of(req) == null && !keyInBand) {
            unauthorized(request, (HttpServletResponse) res, failure.toString());
            return;
        }
        chain.doFilter(req, res);
    }

    private static void unauthorized(HttpServletRequest request, HttpServletResponse response, String detail)
            throws IOException {
        if (request.getContentLengthLong() != 0 || request.getHeader("Transfer-Encoding") != null) {
            // the body is never read: say the connection ends with this answer, so that a client
            // does not reuse a connection Jetty closes for its unread body (it raced and got no answer)
            response.setHeader("Connection", "close");
        }
        Problems.respond(
                response, Problem.of(ProblemType.UNAUTHORIZED, detail).withHeader("WWW-Authenticate", "Bearer"));
    }
}
