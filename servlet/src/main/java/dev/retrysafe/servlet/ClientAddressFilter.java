package dev.retrysafe.servlet;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import java.io.IOException;
import java.util.Collections;

/**
 * Puts the client's address, as {@link TrustedProxies} reads it, in place of the connection's
 * peer ({@link ServletRequest#getRemoteAddr()}) for everything after it: the rate limits keyed
 * on {@code ip} and the unauthenticated budget then count clients, not the load balancer.
 * Runs first. Without trusted proxies it passes requests through unchanged. Threadsafe.
 */
public final class ClientAddressFilter implements Filter {

    private final TrustedProxies proxies;

    /** A filter reading client addresses through {@code proxies}. */
    public ClientAddressFilter(TrustedProxies proxies) {
        this.proxies = proxies;
    }

    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        if (proxies.isEmpty() || !(request instanceof HttpServletRequest http)) {
            chain.doFilter(request, response);
            return;
        }
        String client =
                proxies.client(http.getRemoteAddr(), Collections.list(http.getHeaders(TrustedProxies.FORWARDED_FOR)));
        chain.doFilter(
                new HttpServletRequestWrapper(http) {
                    @Override
                    public String getRemoteAddr() {
                        return client;
                    }
                },
                response);
    }
}
