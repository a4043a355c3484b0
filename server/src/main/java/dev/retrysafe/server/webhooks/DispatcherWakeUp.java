package dev.retrysafe.server.webhooks;

import dev.retrysafe.server.http.RequestAccount;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.function.Consumer;

/**
 * Wakes the dispatcher, the job workers and the live streams after a successful {@code POST}
 * under {@code /v1/}, so the deliveries it made (a payment's event, a retry, a recovery) start at
 * once instead of at the dispatcher's next poll (every 100 ms), and the events it recorded reach
 * the streams at once. It sits outside the idempotency filter, which commits the request's
 * transaction: by the time it runs, the deliveries and events are visible. Waking is cheap and
 * only a hint; the polls find anything it misses. This class is threadsafe.
 */
public final class DispatcherWakeUp implements Filter {

    private final Consumer<String> wakeUp;

    /** A filter calling {@code wakeUp} with the request's account id after each successful POST. */
    public DispatcherWakeUp(Consumer<String> wakeUp) {
        this.wakeUp = wakeUp;
    }

    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        chain.doFilter(request, response);
        if (request instanceof HttpServletRequest http && response instanceof HttpServletResponse answer
                && "POST".equals(http.getMethod()) && http.getRequestURI().startsWith("/v1/")
                && answer.getStatus() >= 200 && answer.getStatus() <= 299) {
            String account = RequestAccount.idOf(request);
            if (account != null) {
                wakeUp.accept(account);
            }
        }
    }
}
