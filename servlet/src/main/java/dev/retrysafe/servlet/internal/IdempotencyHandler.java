package dev.retrysafe.servlet.internal;

import dev.retrysafe.idempotency.Claim;
import dev.retrysafe.idempotency.ClaimOutcome;
import dev.retrysafe.idempotency.Fingerprint;
import dev.retrysafe.idempotency.IdempotencyKey;
import dev.retrysafe.idempotency.IdempotencyStoreException;
import dev.retrysafe.idempotency.KeyParse;
import dev.retrysafe.idempotency.Scope;
import dev.retrysafe.idempotency.StoredResponse;
import dev.retrysafe.servlet.DatabaseOutage;
import dev.retrysafe.servlet.IdempotencyFilter;
import dev.retrysafe.servlet.LoadShedder;
import dev.retrysafe.servlet.ProblemType;
import dev.retrysafe.servlet.RequestDecisions;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.sql.SQLException;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The idempotency step of a request: match, read, claim, then replay, refuse or run the
 * operation in a transaction. Threadsafe (holds only immutable settings).
 */
public final class IdempotencyHandler {

    private static final System.Logger LOG = System.getLogger("dev.retrysafe.servlet");

    private final FilterSettings settings;

    /** A handler with {@code settings}. */
    public IdempotencyHandler(FilterSettings settings) {
        this.settings = settings;
    }

    /**
     * The idempotency steps of one request, as {@link IdempotencyFilter} documents them: the key
     * (missing, malformed: {@code 400}), the body ({@code 413}), the claim (a replay, a
     * {@code 409}: {@code admission} refunded; a changed request: {@code 422}, charged), then
     * {@code operation} in the claim's transaction, the answer stored and committed with it.
     *
     * @param bodyRead the body already read into memory, or {@code null} to read it here
     * @param admission what the rate limit charged the request, given back for the answers that
     *     cost nothing
     */
    public void handle(
            HttpServletRequest request,
            HttpServletResponse response,
            byte @Nullable [] bodyRead,
            Admission admission,
            RequestDecisions.Operation operation)
            throws IOException, ServletException {
        String path = pathOf(request);
        RouteMatch route = match(request, request.getMethod(), path);
        String account = route == null ? null : settings.scope().apply(request);
        if (route == null || account == null) {
            LoadShedder.Priority shed = sheds(request);
            if (shed != null) { // a key on a route that takes none: no replay to protect
                Shedding.refuse(request, response, settings.shedding(), shed);
                return;
            }
            operation.run(request, response);
            return;
        }
        List<String> keyHeaders = headerValues(request, IdempotencyFilter.KEY_HEADER);
        if (keyHeaders.isEmpty()) {
            if (route.keyRequired()) {
                refuseUnread(
                        request,
                        response,
                        problem(
                                ProblemType.IDEMPOTENCY_KEY_MISSING,
                                request.getMethod() + " " + route.template() + " requires an Idempotency-Key header"));
            } else {
                operation.run(request, response);
            }
            return;
        }
        KeyParse parsed = keyHeaders.size() > 1
                ? new KeyParse.Invalid("send exactly one Idempotency-Key header, not " + keyHeaders.size())
                : IdempotencyKey.parse(keyHeaders.get(0));
        if (parsed instanceof KeyParse.Invalid invalid) {
            refuseUnread(request, response, problem(ProblemType.IDEMPOTENCY_KEY_INVALID, invalid.reason()));
            return;
        }
        IdempotencyKey key = ((KeyParse.Valid) parsed).key();
        String scopedRoute = request.getMethod() + " " + route.template();
        if (scopedRoute.length() > Scope.MAX_ROUTE_LENGTH) {
            refuseUnread(
                    request,
                    response,
                    problem(
                            ProblemType.IDEMPOTENCY_KEY_INVALID,
                            "the request path is too long to" + " scope an Idempotency-Key (over "
                                    + Scope.MAX_ROUTE_LENGTH + " characters with the method)"));
            return;
        }
        byte[] body = bodyRead != null && bodyRead.length <= settings.maxBodyBytes()
                ? bodyRead
                : BoundedBody.ofRequest(request, settings.maxBodyBytes());
        if (body == null) {
            problem(
                            ProblemType.REQUEST_TOO_LARGE,
                            "the request body is larger than " + settings.maxBodyBytes() + " bytes")
                    .writeTo(response);
            return;
        }
        Scope scope = new Scope(account, scopedRoute, key);
        // the concrete path, not the template: the same key sent to /v1/payments/A/capture and then
        // /v1/payments/B/capture is a different request (422), never a replay of A's answer
        Fingerprint fingerprint = Fingerprint.of(request.getMethod(), path, body);
        // the operation's transaction comes first: a store may hold the claim in it (a lock)
        KeyedTransaction transaction;
        try {
            transaction = KeyedTransaction.begin(settings);
        } catch (SQLException e) {
            LOG.log(Level.ERROR, "cannot open a connection for " + scopedRoute, e);
            admission.refund(response); // not the client's doing: free
            unavailable(e).writeTo(response);
            return;
        }
        Answer answer;
        try {
            answer = claimAndRun(request, response, admission, operation, transaction, scope, fingerprint, key, body);
        } finally {
            transaction.close();
        }
        if (answer instanceof Answer.Replayed replayed) {
            answer = replay(request, replayed.stored()); // now that ours is closed: a transform may take a connection
        }
        answer.writeTo(response);
    }

    /**
     * Claims in {@code connection}'s transaction, then runs or answers. What a correct client's
     * retry gets (a replay, a {@code 409}) and what the store's failure causes are refunded: the
     * request was charged when it arrived.
     */
    private Answer claimAndRun(
            HttpServletRequest request,
            HttpServletResponse response,
            Admission admission,
            RequestDecisions.Operation operation,
            KeyedTransaction transaction,
            Scope scope,
            Fingerprint fingerprint,
            IdempotencyKey key,
            byte[] body) {
        ClaimOutcome outcome;
        try {
            outcome = settings.store()
                    .claim(
                            transaction.connection(),
                            scope,
                            fingerprint,
                            settings.clock().instant(),
                            settings.lease());
        } catch (IdempotencyStoreException e) {
            LOG.log(Level.ERROR, "idempotency claim failed for " + scope.route(), e);
            transaction.rollback();
            admission.refund(response);
            return unavailable(e);
        }
        if (!(outcome instanceof ClaimOutcome.Acquired)) {
            transaction.rollback(); // ends what the claim read (and a lock it may have taken)
        }
        if (outcome instanceof ClaimOutcome.Replay || outcome instanceof ClaimOutcome.InFlight) {
            admission.refund(response); // what a correct client's retry gets costs nothing
        }
        return switch (outcome) {
            case ClaimOutcome.Replay replay -> new Answer.Replayed(replay.response());
            case ClaimOutcome.InFlight inFlight ->
                problem(
                        ProblemType.IDEMPOTENCY_KEY_IN_USE,
                        "a request with this Idempotency-Key is still being processed; retry later");
            // a client's mistake, not a retry: it stays charged, so that a loop of them is limited too
            case ClaimOutcome.Mismatch mismatch ->
                problem(
                        ProblemType.IDEMPOTENCY_KEY_REUSED,
                        "this Idempotency-Key was already used with a different request to " + scope.route());
            case ClaimOutcome.Acquired acquired ->
                runUnlessShed(request, response, admission, operation, transaction, acquired, key, body);
        };
    }

    /**
     * Runs the operation of an acquired claim, unless the instance sheds the request: only now,
     * with no stored answer found, can it be shed without shedding a replay. A shed claim is let go
     * with nothing done, and the request's charge is given back.
     */
    private Answer runUnlessShed(
            HttpServletRequest request,
            HttpServletResponse response,
            Admission admission,
            RequestDecisions.Operation operation,
            KeyedTransaction transaction,
            ClaimOutcome.Acquired acquired,
            IdempotencyKey key,
            byte[] body) {
        LoadShedder.Priority shed = sheds(request);
        if (shed != null) {
            abandon(settings, acquired.claim(), transaction);
            admission.refund(response);
            return Shedding.answer(settings.shedding(), shed);
        }
        return new ClaimedOperation(settings, acquired.claim(), key, transaction)
                .run(request, new CachedBodyRequest(request, body), response, operation);
    }

    /** The priority at which the shedder sheds this keyed request now, or {@code null}. */
    private LoadShedder.@Nullable Priority sheds(HttpServletRequest request) {
        LoadShedder shedder = settings.shedding();
        return shedder == null || request.getHeader(IdempotencyFilter.KEY_HEADER) == null
                ? null
                : shedder.sheds(request);
    }

    /** A stored answer, through its route's transform; a transform that throws answers 500 (503). */
    private Answer replay(HttpServletRequest request, StoredResponse stored) {
        try {
            return new Answer.Replayed(StoredAnswers.forReplay(settings, request, stored));
        } catch (RuntimeException e) {
            LOG.log(
                    Level.ERROR,
                    "the stored answer transform failed on a replay of " + request.getMethod() + " " + pathOf(request),
                    e);
            return problem(failureType(e), "the stored answer could not be replayed; retry later");
        }
    }

    private Answer.Problem unavailable(Throwable cause) {
        return problem(failureType(cause), "the idempotency store is unavailable; retry later");
    }

    /** 503 when the database cannot be reached (the retry will work once it is back), else 500. */
    static ProblemType failureType(@Nullable Throwable cause) {
        return DatabaseOutage.causedBy(cause) ? ProblemType.SERVICE_UNAVAILABLE : ProblemType.INTERNAL_ERROR;
    }

    /**
     * Answers before the body was read: what is left of it is read and dropped first (up to
     * {@link RateLimitHandler#DRAIN_LIMIT} bytes; a longer one closes the connection, which the
     * answer says), so that the client's next request on the connection is not lost. Behind a
     * {@code RequestBodyFilter} the body is in memory already and this costs nothing.
     */
    private static void refuseUnread(HttpServletRequest request, HttpServletResponse response, Answer answer)
            throws IOException {
        BoundedBody.release(request, response, RateLimitHandler.DRAIN_LIMIT);
        answer.writeTo(response);
    }

    /** Ends an acquired claim without effects: rolls its transaction back, then lets the key go. */
    static void abandon(FilterSettings settings, Claim claim, KeyedTransaction transaction) {
        transaction.rollback();
        settings.store().finished(claim, false);
    }

    private Answer.Problem problem(ProblemType type, String detail) {
        return new Answer.Problem(type, settings.problemTypeBase(), detail);
    }

    private @Nullable RouteMatch match(HttpServletRequest request, String method, String path) {
        if (settings.routeResolver() != null) {
            IdempotencyFilter.Route route = settings.routeResolver().apply(request);
            return route == null ? null : new RouteMatch(route.template(), route.keyRequired());
        }
        for (RouteTemplate route : settings.routes()) {
            if (route.matches(method, path)) {
                return new RouteMatch(route.template(), route.keyRequired());
            }
        }
        return settings.honourEveryPost() && method.equals("POST") ? new RouteMatch(path, false) : null;
    }

    private record RouteMatch(String template, boolean keyRequired) {}

    /**
     * The decoded path within the context, in the one spelling routes are matched on: frameworks
     * (Javalin among them) route {@code /v1/payments/} and {@code //v1/payments} to the same
     * handler as {@code /v1/payments}, so the filter must see them as that route too, or a
     * trailing slash would skip a required key and scope the key apart.
     */
    static String pathOf(HttpServletRequest request) {
        String servletPath = request.getServletPath();
        String pathInfo = request.getPathInfo();
        String path = (servletPath == null ? "" : servletPath) + (pathInfo == null ? "" : pathInfo);
        return normalise(path);
    }

    static String normalise(String path) {
        String collapsed = path.contains("//") ? path.replaceAll("/{2,}", "/") : path; // rare: skip the regex
        while (collapsed.length() > 1 && collapsed.endsWith("/")) {
            collapsed = collapsed.substring(0, collapsed.length() - 1);
        }
        return collapsed.isEmpty() ? "/" : collapsed;
    }

    private static List<String> headerValues(HttpServletRequest request, String name) {
        Enumeration<String> values = request.getHeaders(name);
        return values == null ? List.of() : Collections.list(values);
    }
}
