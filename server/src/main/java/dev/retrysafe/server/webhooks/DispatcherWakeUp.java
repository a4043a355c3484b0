package dev.retrysafe.server.webhooks;

import dev.retrysafe.server.http.RequestAccount;
import dev.retrysafe.server.http.RequestEffects;
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
 * under {@code /v1/}, each only when the request gave it something to do
 * ({@link RequestEffects}): the dispatcher when the request made deliveries (a payment's event
 * with a subscribed endpoint) or made some due again (a retry, a recovery, an enabled endpoint),
 * the workers when it
 * enqueued a job, the streams when it recorded events. So the work starts at once instead of at
 * the next poll (every 100 ms), and a request that made none costs no claim round. It sits
 * outside the idempotency filter, which commits the request's transaction: by the time it runs,
 * the deliveries, jobs and events are visible. Waking is only a hint; the polls find anything it
 * misses. This class is threadsafe.
 */
public final class DispatcherWakeUp implements Filter {

    /** What can be woken. */
    public interface Targets {
        /** The webhook dispatcher: deliveries are due. */
        void deliveries();

        /** The job workers: a job was enqueued. */
        void jobs();

        /** The live streams: the account {@code accountId} has new events. */
        void events(String accountId);
    }

    private final Targets targets;

    /** A filter waking {@code targets} after each successful POST that gave them work. */
    public DispatcherWakeUp(Targets targets) {
        this.targets = targets;
    }

    /** Targets from three callbacks. */
    public static Targets targets(Runnable deliveries, Runnable jobs, Consumer<String> events) {
        return new Targets() {
            @Override
            public void deliveries() {
                deliveries.run();
            }

            @Override
            public void jobs() {
                jobs.run();
            }

            @Override
            public void events(String accountId) {
                events.accept(accountId);
            }
        };
    }

    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        RequestEffects effects = RequestEffects.collect(() -> chain.doFilter(request, response));
        if (request instanceof HttpServletRequest http
                && response instanceof HttpServletResponse answer
                && "POST".equals(http.getMethod())
                && http.getRequestURI().startsWith("/v1/")
                && answer.getStatus() >= 200
                && answer.getStatus() <= 299) {
            if (effects.deliveries()) {
                targets.deliveries();
            }
            if (effects.jobs()) {
                targets.jobs();
            }
            String account = RequestAccount.idOf(request);
            if (effects.events() && account != null) {
                targets.events(account);
            }
        }
    }
}
