package dev.retrysafe.server;

import dev.retrysafe.server.config.ServerConfig;
import dev.retrysafe.server.dashboard.DashboardAssets;
import dev.retrysafe.server.docs.DocsRoutes;
import dev.retrysafe.server.docs.LandingPage;
import dev.retrysafe.server.events.EventRoutes;
import dev.retrysafe.server.http.AccountRequired;
import dev.retrysafe.server.http.AuthFilter;
import dev.retrysafe.server.http.ErrorMapping;
import dev.retrysafe.server.http.MetricsRoute;
import dev.retrysafe.server.http.Probes;
import dev.retrysafe.server.http.ProblemErrorHandler;
import dev.retrysafe.server.http.ProblemPages;
import dev.retrysafe.server.http.RequestLimits;
import dev.retrysafe.server.http.TraceContext;
import dev.retrysafe.server.payments.PaymentRoutes;
import dev.retrysafe.server.payments.RefundRoutes;
import dev.retrysafe.server.ratelimits.RateLimitRoutes;
import dev.retrysafe.server.reports.JobRoutes;
import dev.retrysafe.server.streams.EventStream;
import dev.retrysafe.server.webhooks.DispatcherWakeUp;
import dev.retrysafe.server.webhooks.WebhookRoutes;
import dev.retrysafe.servlet.ClientAddressFilter;
import dev.retrysafe.servlet.TrustedProxies;
import io.javalin.Javalin;
import io.javalin.http.Handler;
import io.javalin.http.HttpResponseException;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.Servlet;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.function.BiConsumer;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.ee10.servlet.ServletMapping;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.handler.GracefulHandler;
import org.eclipse.jetty.util.component.LifeCycle;
import org.jspecify.annotations.Nullable;

/**
 * The one place where the HTTP pipeline is put together. A request passes, in this order:
 * <ol>
 *   <li>Jetty (virtual threads; graceful stop);</li>
 *   <li>{@link TraceContext}: the request's W3C {@code traceparent} (the one it carried, or a new
 *       one), which the events it records carry into their webhooks;</li>
 *   <li>{@link ClientAddressFilter}: behind trusted proxies, the client's address from {@code X-Forwarded-For};</li>
 *   <li>{@link RequestLimits#shedder()} (when enabled): {@code 503 overloaded} for low, then normal
 *       priority routes while too many requests wait for a database connection (a keyed request is
 *       judged by the idempotency filter after its lookup, so that a replay is never shed);</li>
 *   <li>{@link AuthFilter}: API key to account (only under {@code /v1/});</li>
 *   <li>{@link RequestLimits#inFlight()}: {@code 429} when the API key or the address already
 *       has as many requests in flight as it may (nothing spent);</li>
 *   <li>the rate-limit filter (when enabled): headers on every answer, {@code 429} over a limit;
 *       a keyed request is charged here too, and refunded by the idempotency filter when it
 *       turns out to be a replay or a {@code 409};</li>
 *   <li>{@link AccountRequired}: {@code 401} for a request the first step could
 *       not authenticate (after the rate limit, so that guessing keys is limited by address);</li>
 *   <li>{@link RequestLimits#bodies()}: the body read into memory within its size, deadline and
 *       rate, and the memory bound of all bodies ({@code 413}, {@code 408}, {@code 503});</li>
 *   <li>{@link DispatcherWakeUp}: after a successful POST has committed, the webhook dispatcher
 *       and the job workers are told to claim at once;</li>
 *   <li>the idempotency filter, scoped by that account (when enabled);</li>
 *   <li>Javalin's routes, with every error mapped to a problem; or, for {@link EventStream#PATH},
 *       the WebSocket servlet of the live event stream.</li>
 * </ol>
 *
 * <p>The rate limit, body and idempotency steps are those of
 * {@link dev.retrysafe.servlet.RequestDecisions}, installed one by one so that the server's own
 * {@code 401} and dispatcher wake-up can sit between them; in this order they decide as it does.
 */
final class HttpApp {

    /**
     * Connections the kernel may hold for the server before it accepts them. The JDK's default
     * (50) drops the connections of a burst beyond it, which their clients retry only a second or
     * more later; the kernel caps this at {@code net.core.somaxconn} (4096 on current Linux).
     */
    static final int ACCEPT_QUEUE = 1024;

    /** The init parameter of a servlet mapped beside Javalin that lists the methods it answers. */
    private static final String METHODS_PARAMETER = "dev.retrysafe.server.methods";

    private HttpApp() {}

    /** The handlers the routes call. */
    record Handlers(
            Probes probes,
            PaymentRoutes payments,
            RefundRoutes refunds,
            RateLimitRoutes rateLimits,
            EventRoutes events,
            WebhookRoutes webhooks,
            JobRoutes jobs,
            DispatcherWakeUp wakeUp,
            MetricsRoute metrics,
            DocsRoutes docs,
            LandingPage landing,
            Servlet stream) {}

    static Javalin create(
            ServerConfig config,
            AuthFilter auth,
            RequestLimits limits,
            @Nullable Filter rateLimit,
            @Nullable Filter idempotency,
            Handlers h) {
        ErrorMapping errors = new ErrorMapping(config.maxBodyBytes());
        return Javalin.create(c -> {
            c.startup.showJavalinBanner = false;
            c.startup.showOldJavalinVersionWarning = false;
            c.concurrency.useVirtualThreads = true;
            c.http.prefer405over404 = true;
            c.http.maxRequestSize = config.maxBodyBytes();
            c.jetty.host = config.host();
            c.jetty.port = config.port();
            c.jetty.modifyServer(server -> {
                // GracefulHandler lets stop() wait for in-flight requests, up to the stop timeout
                server.setHandler(new GracefulHandler());
                server.setStopTimeout(config.shutdownTimeout().toMillis());
                server.setErrorHandler(new ProblemErrorHandler());
                // Javalin adds its connector after this; set its queue before it opens
                server.addEventListener(new LifeCycle.Listener() {
                    @Override
                    public void lifeCycleStarting(LifeCycle event) {
                        for (Connector connector : server.getConnectors()) {
                            if (connector instanceof ServerConnector serverConnector) {
                                serverConnector.setAcceptQueueSize(ACCEPT_QUEUE);
                            }
                        }
                    }
                });
            });
            c.jetty.modifyServletContextHandler(context -> {
                context.setErrorHandler(new ProblemErrorHandler());
                // the order of cross-cutting concerns: client address, authentication, requests in
                // flight, rate limit, body, then idempotency: a request is counted and charged
                // before its body can cost memory or a thread's time
                // first of all, the trace context: the events any later step records carry it
                addFilter(context, new TraceContext());
                addFilter(
                        context,
                        new ClientAddressFilter(
                                TrustedProxies.of(config.rateLimits().trustedProxies())));
                if (limits.shedder() != null) {
                    // before authentication, which may need the database the shedding protects
                    addFilter(context, limits.shedder());
                }
                addFilter(context, auth);
                addFilter(context, limits.inFlight());
                if (rateLimit != null) {
                    addFilter(context, rateLimit);
                }
                // the stream's upgrade may come without a header: its first message then carries the key
                addFilter(context, new AccountRequired(EventStream.PATH));
                addFilter(context, limits.bodies());
                // outside the idempotency filter, so it runs after the request's transaction committed
                addFilter(context, h.wakeUp());
                if (idempotency != null) {
                    addFilter(context, idempotency);
                }
                // an exact mapping wins over Javalin's servlet at /*; behind the same filters. It
                // answers HEAD as it answers a GET that is no upgrade, like every GET route here
                addServlet(context, "live-events", h.stream(), EventStream.PATH, "GET", "HEAD");
            });

            // every GET also answers HEAD (same status and headers, no body); without this Javalin
            // answered HEAD with an empty 200 for any path, misleading probes and caches
            BiConsumer<String, Handler> read = (path, handler) -> {
                c.routes.get(path, handler);
                c.routes.head(path, handler);
            };
            read.accept("/", h.landing()::page);
            read.accept("/health", h.probes()::health);
            read.accept("/ready", h.probes()::ready);
            read.accept("/metrics", h.metrics()::metrics);
            read.accept("/problems", ProblemPages::index);
            read.accept("/problems/{slug}", ProblemPages::page);
            read.accept("/openapi.json", h.docs()::openApi);
            read.accept("/docs", h.docs()::page);
            read.accept("/docs/{asset}", h.docs()::asset);
            read.accept("/dashboard", DashboardAssets::page);
            read.accept("/dashboard/{asset}", DashboardAssets::asset);
            c.routes.post("/v1/payments", h.payments()::create);
            read.accept("/v1/payments", h.payments()::list);
            read.accept("/v1/payments/{id}", h.payments()::get);
            c.routes.post("/v1/refunds", h.refunds()::create);
            read.accept("/v1/refunds", h.refunds()::list);
            read.accept("/v1/refunds/{id}", h.refunds()::get);
            read.accept("/v1/rate_limit", h.rateLimits()::budgets);
            read.accept("/v1/events", h.events()::list);
            read.accept("/v1/events/{id}", h.events()::get);
            read.accept("/v1/events/{id}/deliveries", h.webhooks()::eventDeliveries);
            c.routes.post("/v1/reports", h.jobs()::create);
            read.accept("/v1/jobs", h.jobs()::list);
            read.accept("/v1/jobs/{id}", h.jobs()::get);
            c.routes.delete("/v1/jobs/{id}", h.jobs()::cancel);
            read.accept("/v1/jobs/{id}/result", h.jobs()::result);
            c.routes.post("/v1/webhook_endpoints", h.webhooks()::create);
            read.accept("/v1/webhook_endpoints", h.webhooks()::list);
            read.accept("/v1/webhook_endpoints/{id}", h.webhooks()::get);
            c.routes.patch("/v1/webhook_endpoints/{id}", h.webhooks()::update);
            c.routes.delete("/v1/webhook_endpoints/{id}", h.webhooks()::delete);
            read.accept("/v1/webhook_endpoints/{id}/secret", h.webhooks()::secret);
            c.routes.post("/v1/webhook_endpoints/{id}/rotate_secret", h.webhooks()::rotateSecret);
            c.routes.post("/v1/webhook_endpoints/{id}/enable", h.webhooks()::enable);
            c.routes.post("/v1/webhook_endpoints/{id}/pause", h.webhooks()::pause);
            c.routes.post("/v1/webhook_endpoints/{id}/resume", h.webhooks()::resume);
            c.routes.post("/v1/webhook_endpoints/{id}/recover", h.webhooks()::recover);
            read.accept("/v1/webhook_endpoints/{id}/deliveries", h.webhooks()::deliveries);
            read.accept("/v1/deliveries/{id}", h.webhooks()::delivery);
            c.routes.post("/v1/deliveries/{id}/retry", h.webhooks()::retry);
            read.accept("/v1/webhook_attempt_stats", h.webhooks()::attemptStats);

            c.routes.exception(HttpResponseException.class, errors::httpResponse);
            c.routes.exception(Exception.class, errors::unexpected);
        });
    }

    /**
     * Every route {@code app} answers, as {@code "GET /v1/payments/{id}"}: those of Javalin's router,
     * then, for each servlet mapped beside Javalin's, its path once per method it declared to
     * {@link #addServlet} ({@code "* <path>"} for a servlet mapped without that, which names no
     * operation a document could describe). Jetty's own unreachable default servlet is left out.
     */
    static List<String> routes(Javalin app) {
        List<String> routes = new ArrayList<>();
        app.unsafe
                .internalRouter
                .allHttpHandlers()
                .forEach(e -> routes.add(e.endpoint.method.name() + " " + e.endpoint.path));
        ServletHandler servlets = app.jettyServer()
                .server()
                .getDescendant(ServletContextHandler.class)
                .getServletHandler();
        for (ServletMapping mapping : servlets.getServletMappings()) {
            ServletHolder holder = servlets.getServlet(mapping.getServletName());
            if (mapping.isFromDefaultDescriptor() || holder.getServletInstance() == app.javalinServlet()) {
                continue;
            }
            String methods = holder.getInitParameter(METHODS_PARAMETER);
            for (String path : mapping.getPathSpecs()) {
                for (String method : (methods == null ? "*" : methods).split(",")) {
                    routes.add(method + " " + path);
                }
            }
        }
        return routes;
    }

    /** Maps {@code servlet} at {@code path}, noting the {@code methods} it answers for {@link #routes}. */
    private static void addServlet(
            ServletContextHandler context, String name, Servlet servlet, String path, String... methods) {
        ServletHolder holder = new ServletHolder(name, servlet);
        holder.setInitParameter(METHODS_PARAMETER, String.join(",", methods));
        context.addServlet(holder, path);
    }

    private static void addFilter(ServletContextHandler context, Filter filter) {
        context.addFilter(new FilterHolder(filter), "/*", EnumSet.of(DispatcherType.REQUEST));
    }
}
