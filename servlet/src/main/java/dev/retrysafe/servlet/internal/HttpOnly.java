package dev.retrysafe.servlet.internal;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;

/** What every filter here does first: handle HTTP requests, pass anything else on untouched. */
public final class HttpOnly {

    /** A filter's logic for one HTTP request. */
    @FunctionalInterface
    public interface Handler {
        /** Handles one HTTP request, calling {@code chain} if it lets the request through. */
        void handle(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
                throws IOException, ServletException;
    }

    private HttpOnly() {}

    /** Runs {@code handler} for an HTTP request and response; passes anything else on. */
    public static void filter(ServletRequest request, ServletResponse response, FilterChain chain, Handler handler)
            throws IOException, ServletException {
        if (request instanceof HttpServletRequest httpRequest && response instanceof HttpServletResponse httpResponse) {
            handler.handle(httpRequest, httpResponse, chain);
        } else {
            chain.doFilter(request, response);
        }
    }
}
