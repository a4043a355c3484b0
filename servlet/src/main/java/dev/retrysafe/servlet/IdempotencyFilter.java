package dev.retrysafe.servlet;

import dev.retrysafe.idempotency.IdempotencyStore;
import dev.retrysafe.servlet.internal.FilterSettings;
import dev.retrysafe.servlet.internal.Handoff;
import dev.retrysafe.servlet.internal.HttpOnly;
import dev.retrysafe.servlet.internal.IdempotencyHandler;
import dev.retrysafe.servlet.internal.RouteTemplate;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * Applies idempotency keys to any servlet application. This class is threadsafe.
 *
 * <p>For a POST (or a configured route) that carries an {@code Idempotency-Key}, the filter reads
 * the body (at most {@code maxBodyBytes}), fingerprints it and claims the key in the
 * {@link IdempotencyStore}. A finished request is replayed with {@code Idempotent-Replayed: true};
 * one still running answers {@code 409} with {@code Retry-After: 1}; a different request under the
 * same key answers {@code 422}. Otherwise the filter opens a transaction, binds it to the request
 * ({@link RequestTransaction}) and runs the chain with the response fully buffered. An answer
 * below 500 is stored in that transaction, which then commits, and only then is it sent. A 5xx
 * answer or an exception rolls everything back and releases the key, so a retry runs again.
 *
 * <p>Connections: a store that {@linkplain IdempotencyStore#claimsOnOwnConnection() claims on a
 * connection of its own} (claim rows) claims before the transaction opens and releases after its
 * connection went back, so a keyed request holds one pooled connection at a time; any other store
 * claims in the request's transaction. A pool of N connections thus serves N keyed requests at
 * once, whatever the store.
 *
 * <p>What is stored is the status, the body and the {@linkplain Builder#storedHeaders stored
 * headers}, kept for the store's retention. An answer that carries a secret should not be kept
 * as it is: a {@link StoredAnswerTransform} set for its route ({@link Builder#storedAnswerTransform})
 * changes it before it is stored and again when it is replayed.
 *
 * <p>The key's scope is (account, method and route template, key); for a POST that matches no
 * configured route the template is the request path. The fingerprint covers the method, the
 * concrete request path and the canonical JSON body, so the same key reused on
 * {@code /v1/payments/A/capture} and then {@code /v1/payments/B/capture} answers {@code 422}
 * instead of replaying A's answer.
 *
 * <p>An exception thrown downstream is logged (System.Logger {@code dev.retrysafe.servlet}), set
 * as request attribute {@code jakarta.servlet.error.exception}, and answered with a {@code 500}
 * {@link ProblemType#INTERNAL_ERROR} problem; it is not rethrown, so the container never adds an
 * error page of its own. {@link Error}s are rethrown after the rollback. Requests behind the
 * filter must be handled synchronously: asynchronous processing is rolled back and answered 500.
 *
 * <pre>{@code
 * IdempotencyFilter filter = IdempotencyFilter.builder()
 *         .dataSource(dataSource)
 *         .store(JdbcIdempotencyStore.create(dataSource))
 *         .scope(request -> (String) request.getAttribute("account"))
 *         .route("POST", "/v1/payments", true)
 *         .build();
 * }</pre>
 */
public final class IdempotencyFilter implements Filter {

    /** The request header that carries the key. */
    public static final String KEY_HEADER = "Idempotency-Key";
    /** The response header that marks a replayed answer (value {@code true}). */
    public static final String REPLAYED_HEADER = "Idempotent-Replayed";

    private final IdempotencyHandler handler;

    /**
     * The route a request belongs to, as a {@linkplain Builder#routes(Function) route resolver}
     * decides it: the template scopes the key (with the method), {@code keyRequired} says whether
     * a request without a key answers 400 or passes untouched.
     *
     * @param template the route's template as the application's router spells it, such as
     *     {@code /v1/payments/{id}/capture}
     */
    public record Route(String template, boolean keyRequired) {
        /** Checks the template. */
        public Route {
            if (template.isEmpty()) {
                throw new IllegalArgumentException("template must not be empty");
            }
        }
    }

    private IdempotencyFilter(Builder builder) {
        this.handler = new IdempotencyHandler(builder.settings());
    }

    /** A new builder. */
    public static Builder builder() {
        return new Builder();
    }

    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        HttpOnly.filter(
                request,
                response,
                chain,
                (httpRequest, httpResponse, next) -> handler.handle(
                        httpRequest,
                        httpResponse,
                        Handoff.body(httpRequest),
                        Handoff.admission(httpRequest),
                        next::doFilter));
    }

    /** This filter's step, for {@link RequestDecisions}. */
    IdempotencyHandler handler() {
        return handler;
    }

    /** Builds an {@link IdempotencyFilter}. Not threadsafe; the built filter is immutable. */
    public static final class Builder {
        private @Nullable DataSource dataSource;
        private @Nullable RequestTransactions transactions;
        private @Nullable Function<HttpServletRequest, @Nullable Route> routeResolver;
        private @Nullable IdempotencyStore store;
        private Clock clock = Clock.systemUTC();
        private @Nullable Function<HttpServletRequest, @Nullable String> scope;
        private final List<RouteTemplate> routes = new ArrayList<>();
        private boolean honourEveryPost = true;
        private Duration lease = Duration.ofSeconds(30);
        private int maxBodyBytes = 1024 * 1024;
        private String problemTypeBase = "/problems/";
        private final Set<String> storedHeaders = new LinkedHashSet<>(FilterSettings.DEFAULT_STORED_HEADERS);
        private final List<FilterSettings.TransformedRoute> transforms = new ArrayList<>();
        private @Nullable LoadShedder shedding;

        private Builder() {}

        /**
         * Judges keyed requests for {@code shedder} once their key's lookup found no stored answer,
         * so that a replay is never shed; build the shedder with
         * {@link LoadShedder.Builder#keyedRequestsJudgedAfterLookup} (default: no shedding here).
         */
        public Builder shedding(LoadShedder shedder) {
            this.shedding = shedder;
            return this;
        }

        /**
         * Where the operation's effects and the stored answers are written: each keyed request
         * takes a connection of its own from it (required unless {@link #transactions} is set).
         */
        public Builder dataSource(DataSource dataSource) {
            this.dataSource = dataSource;
            return this;
        }

        /**
         * Who runs each keyed request's transaction, instead of a connection of the filter's own
         * from {@link #dataSource}: for an application whose transaction manager the operation's
         * own transactional code must join (see {@link RequestTransactions}).
         */
        public Builder transactions(RequestTransactions transactions) {
            this.transactions = Objects.requireNonNull(transactions, "transactions");
            return this;
        }

        /**
         * Decides the route of each request, instead of {@link #route} and
         * {@link #honourEveryPost}: for a framework that knows which handler a request goes to. A
         * request it returns {@code null} for passes untouched.
         */
        public Builder routes(Function<HttpServletRequest, @Nullable Route> resolver) {
            this.routeResolver = Objects.requireNonNull(resolver, "resolver");
            return this;
        }

        /** The store of keys and answers (required), e.g. {@code JdbcIdempotencyStore.create(dataSource)}. */
        public Builder store(IdempotencyStore store) {
            this.store = store;
            return this;
        }

        /** Wall clock for leases and retention (default: system UTC). */
        public Builder clock(Clock clock) {
            this.clock = clock;
            return this;
        }

        /**
         * Who the request belongs to (the account id), or {@code null} when unauthenticated, in
         * which case the filter lets the request pass untouched (required).
         */
        public Builder scope(Function<HttpServletRequest, @Nullable String> scope) {
            this.scope = scope;
            return this;
        }

        /**
         * A route with a template such as {@code /v1/payments} or {@code /v1/payments/{id}/capture}.
         * {@code keyRequired}: a request without a key answers 400; otherwise it passes untouched.
         *
         * @throws IllegalArgumentException if the method is not an HTTP token, the template is not
         *     a path of literal and {@code {name}} segments, or the route was already added
         */
        public Builder route(String method, String template, boolean keyRequired) {
            RouteTemplate route = RouteTemplate.of(method.toUpperCase(Locale.ROOT), template, keyRequired);
            for (RouteTemplate existing : routes) {
                if (existing.method().equals(route.method())
                        && existing.template().equals(route.template())) {
                    throw new IllegalArgumentException("route already added: " + route.method() + " " + template);
                }
            }
            routes.add(route);
            return this;
        }

        /** Whether every POST not listed by {@link #route} honours a key when one is sent (default true). */
        public Builder honourEveryPost(boolean honour) {
            this.honourEveryPost = honour;
            return this;
        }

        /** How long a claim is held before another request may take it over (default 30 s). */
        public Builder lease(Duration lease) {
            this.lease = FilterSettings.checkLease(lease);
            return this;
        }

        /** Largest body fingerprinted; a longer one answers 413 (default 1 MiB). */
        public Builder maxBodyBytes(int maxBodyBytes) {
            this.maxBodyBytes = FilterSettings.checkMaxBodyBytes(maxBodyBytes);
            return this;
        }

        /** Prefix of problem {@code type} URIs (default {@code /problems/}). */
        public Builder problemTypeBase(String base) {
            this.problemTypeBase = FilterSettings.checkProblemTypeBase(base);
            return this;
        }

        /**
         * The response headers stored with an answer and replayed, replacing the default
         * {@code Content-Type} and {@code Location} (names are case-insensitive; e.g. add
         * {@code Retry-After} for {@code 202} answers).
         *
         * @throws IllegalArgumentException if a name is not an HTTP token
         */
        public Builder storedHeaders(String... names) {
            this.storedHeaders.clear();
            for (String name : names) {
                this.storedHeaders.add(FilterSettings.checkHeaderName(name));
            }
            return this;
        }

        /**
         * Passes the answers of one route through {@code transform} on their way into the store
         * and back out on a replay, e.g. to keep a secret out of the stored answer and replay the
         * current one ({@link StoredAnswerTransform}). The route is matched on the request's
         * method and path like {@link #route}, whether or not it is also added there; the first
         * route added that matches applies.
         *
         * @throws IllegalArgumentException if the method or template is malformed (as for
         *     {@link #route}) or the route already has a transform
         */
        public Builder storedAnswerTransform(String method, String template, StoredAnswerTransform transform) {
            RouteTemplate route = RouteTemplate.of(method.toUpperCase(Locale.ROOT), template, false);
            if (transforms.stream().anyMatch(existing -> existing.route().equals(route))) {
                throw new IllegalArgumentException(
                        "stored answer transform already set: " + route.method() + " " + template);
            }
            transforms.add(new FilterSettings.TransformedRoute(route, Objects.requireNonNull(transform, "transform")));
            return this;
        }

        /**
         * The filter.
         *
         * @throws IllegalStateException if the store, the scope, or both the data source and the
         *     transactions were not set
         */
        public IdempotencyFilter build() {
            return new IdempotencyFilter(this);
        }

        private FilterSettings settings() {
            if ((dataSource == null && transactions == null) || store == null || scope == null) {
                throw new IllegalStateException("dataSource, store and scope are required; missing:"
                        + (dataSource == null && transactions == null ? " dataSource" : "")
                        + (store == null ? " store" : "")
                        + (scope == null ? " scope" : ""));
            }
            return new FilterSettings(
                    dataSource,
                    transactions,
                    store,
                    clock,
                    scope,
                    routeResolver,
                    routes,
                    honourEveryPost,
                    lease,
                    maxBodyBytes,
                    problemTypeBase,
                    storedHeaders,
                    transforms,
                    shedding);
        }
    }
}
