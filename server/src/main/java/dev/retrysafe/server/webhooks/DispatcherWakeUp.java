package dev.retrysafe.server.webhooks;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;

/**
 * Wakes the dispatcher after a successful {@code POST} under {@code /v1/}, so the deliveries it
 * made (a payment's event, a retry, a recovery) start at once instead of at the dispatcher's next
 * poll (every 100 ms). It sits outside the idempotency filter, which commits the request's
 * transaction: by the time it runs, the deliveries are visible to the claim. Waking is cheap and
 * only a hint; the poll finds anything it misses. This class is threadsafe.
 */
public final class DispatcherWakeUp implements Filter {

    private final Runnable wakeUp;

    /** A filter calling {@code wakeUp} after each successful POST. */
    public DispatcherWakeUp(Runnable wakeUp) {
        this.wakeUp = wakeUp;
    }

    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        chain.doFilter(request, response);
        if (request instanceof HttpServletRequest http && response instanceof HttpServletResponse answer
                && "POST".equals(http.getMethod()) && http.getRequestURI().startsWith("/v1/")
                && answer.getStatus() >= 200 && answer.getStatus() <= 299) {
            wakeUp.run();
        }
    }
}
