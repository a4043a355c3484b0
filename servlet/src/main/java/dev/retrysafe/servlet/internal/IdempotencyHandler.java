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
        Keyed keyed = new Keyed(request, response, admission, operation, scope, fingerprint, key, body);
        Answer answer = settings.store().claimsOnOwnConnection() ? claimThenBegin(keyed) : beginThenClaim(keyed);
        if (answer instanceof Answer.Replayed replayed) {
            answer = replay(request, replayed.stored()); // now that ours is closed: a transform may take a connection
        }
        answer.writeTo(response);
    }

    /** One keyed request on its way through the claim: what it is, and who answers it. */
    private record Keyed(
            HttpServletRequest request,
            HttpServletResponse response,
            Admission admission,
            RequestDecisions.Operation operation,
            Scope scope,
            Fingerprint fingerprint,
            IdempotencyKey key,
            byte[] body) {}

    /**
     * For a store whose claim commits on a connection of its own (claim rows): the claim first, its
     * connection given back, and only an acquired claim opens the operation's transaction. So the
     * request holds one pooled connection at a time; the other order held the transaction's while
     * the claim waited for a second, and a pool smaller than twice the keyed requests in flight
     * ran dry. A claim whose transaction cannot begin is released: nothing ran.
     */
    private Answer claimThenBegin(Keyed keyed) {
        ClaimOutcome outcome;
        try {
            outcome = settings.store()
                    .claim(keyed.scope(), keyed.fingerprint(), settings.clock().instant(), settings.lease());
        } catch (IdempotencyStoreException e) {
            return claimFailed(keyed, e);
        }
        if (!(outcome instanceof ClaimOutcome.Acquired acquired)) {
            return answerWithoutRunning(keyed, outcome);
        }
        LoadShedder.Priority shed = sheds(keyed.request());
        if (shed != null) {
            settings.store().finished(acquired.claim(), false); // never ran: the key is free again
            return shedAnswer(keyed, shed);
        }
        KeyedTransaction transaction = null;
        try {
            transaction = KeyedTransaction.begin(settings);
        } catch (SQLException e) {
            return beginFailed(keyed, e);
        } finally {
            if (transaction == null) {
                settings.store().finished(acquired.claim(), false); // never ran: the key is free again
            }
        }
        return runClaimed(keyed, acquired.claim(), transaction);
    }

    /**
     * For a store that may hold the claim in the operation's transaction (an advisory lock, or an
     * in-process claim that reads through it): the transaction first, the claim in it.
     */
    private Answer beginThenClaim(Keyed keyed) {
        KeyedTransaction transaction;
        try {
            transaction = KeyedTransaction.begin(settings);
        } catch (SQLException e) {
            return beginFailed(keyed, e);
        }
        try {
            ClaimOutcome outcome;
            try {
                outcome = settings.store()
                        .claim(
                                transaction.connection(),
                                keyed.scope(),
                                keyed.fingerprint(),
                                settings.clock().instant(),
                                settings.lease());
            } catch (IdempotencyStoreException e) {
                transaction.rollback();
                return claimFailed(keyed, e);
            }
            if (outcome instanceof ClaimOutcome.Acquired acquired) {
                LoadShedder.Priority shed = sheds(keyed.request());
                if (shed != null) {
                    transaction.rollback();
                    transaction.close(); // the connection back before the claim is let go, as runClaimed does
                    settings.store().finished(acquired.claim(), false);
                    return shedAnswer(keyed, shed);
                }
                return runClaimed(keyed, acquired.claim(), transaction);
            }
            transaction.rollback(); // ends what the claim read (and a lock it may have taken)
            return answerWithoutRunning(keyed, outcome);
        } finally {
            transaction.close(); // once only: runClaimed closed it already
        }
    }

    /**
     * Runs the operation under {@code claim} in {@code transaction}, then gives the transaction's
     * connection back, and only then finishes the claim (a release may take a connection of its
     * own: asked for while the request still held one, it could wait for a connection that none
     * gives back).
     */
    private Answer runClaimed(Keyed keyed, Claim claim, KeyedTransaction transaction) {
        try {
            return new ClaimedOperation(settings, claim, keyed.key(), transaction)
                    .run(
                            keyed.request(),
                            new CachedBodyRequest(keyed.request(), keyed.body()),
                            keyed.response(),
                            keyed.operation());
        } finally {
            transaction.close();
            settings.store().finished(claim, transaction.committed());
        }
    }

    /**
     * The answer to a claim that was not acquired. What a correct client's retry gets (a replay, a
     * {@code 409}) is refunded: the request was charged when it arrived.
     */
    private Answer answerWithoutRunning(Keyed keyed, ClaimOutcome outcome) {
        if (outcome instanceof ClaimOutcome.Replay || outcome instanceof ClaimOutcome.InFlight) {
            keyed.admission().refund(keyed.response()); // what a correct client's retry gets costs nothing
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
                        "this Idempotency-Key was already used with a different request to "
                                + keyed.scope().route());
            case ClaimOutcome.Acquired acquired ->
                throw new IllegalStateException("an acquired claim runs its operation");
        };
    }

    /**
     * The priority at which the load shedder sheds this keyed request now, or {@code null}. Asked
     * only once the lookup found no stored answer, so that a replay is never shed.
     */
    private LoadShedder.@Nullable Priority sheds(HttpServletRequest request) {
        LoadShedder shedder = settings.shedding();
        return shedder == null || request.getHeader(IdempotencyFilter.KEY_HEADER) == null
                ? null
                : shedder.sheds(request);
    }

    /** A shed request, its claim let go: nothing ran, so its charge is given back. */
    private Answer shedAnswer(Keyed keyed, LoadShedder.Priority shed) {
        keyed.admission().refund(keyed.response());
        return Shedding.answer(java.util.Objects.requireNonNull(settings.shedding()), shed);
    }

    /** The store failed: not the client's doing, so free; 503 when the database cannot be reached. */
    private Answer claimFailed(Keyed keyed, IdempotencyStoreException e) {
        LOG.log(Level.ERROR, "idempotency claim failed for " + keyed.scope().route(), e);
        keyed.admission().refund(keyed.response());
        return unavailable(e);
    }

    /** No transaction for the operation: not the client's doing, so free; 503 when the database cannot be reached. */
    private Answer beginFailed(Keyed keyed, SQLException e) {
        LOG.log(Level.ERROR, "cannot open a connection for " + keyed.scope().route(), e);
        keyed.admission().refund(keyed.response());
        return unavailable(e);
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
