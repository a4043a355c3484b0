package dev.retrysafe.servlet.internal;

import dev.retrysafe.idempotency.Claim;
import dev.retrysafe.idempotency.ClaimLostException;
import dev.retrysafe.idempotency.IdempotencyKey;
import dev.retrysafe.idempotency.IdempotencyStoreException;
import dev.retrysafe.idempotency.StoredResponse;
import dev.retrysafe.servlet.ProblemType;
import dev.retrysafe.servlet.RequestDecisions;
import dev.retrysafe.servlet.RequestTransaction;
import jakarta.servlet.RequestDispatcher;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.sql.SQLException;
import org.jspecify.annotations.Nullable;

/**
 * One operation run under an acquired claim, in the claim's transaction, bound to the request:
 * committed with its answer, or rolled back. Used once, by one thread; the caller then closes the
 * transaction and only after that {@linkplain dev.retrysafe.idempotency.IdempotencyStore#finished
 * finishes} the claim (a release may need a connection of its own).
 */
record ClaimedOperation(FilterSettings settings, Claim claim, IdempotencyKey key, KeyedTransaction transaction) {

    private static final System.Logger LOG = System.getLogger("dev.retrysafe.servlet");

    Answer run(
            HttpServletRequest original,
            HttpServletRequest replayable,
            HttpServletResponse response,
            RequestDecisions.Operation operation) {
        original.setAttribute(RequestTransaction.CONNECTION_ATTRIBUTE, transaction.connection());
        original.setAttribute(RequestTransaction.KEY_ATTRIBUTE, key.value());
        try {
            return runInTransaction(original, replayable, new BufferedResponse(response), operation);
        } finally {
            original.removeAttribute(RequestTransaction.CONNECTION_ATTRIBUTE);
            original.removeAttribute(RequestTransaction.KEY_ATTRIBUTE);
        }
    }

    private Answer runInTransaction(
            HttpServletRequest original,
            HttpServletRequest replayable,
            BufferedResponse buffered,
            RequestDecisions.Operation operation) {
        try {
            operation.run(replayable, buffered);
        } catch (IOException | ServletException | RuntimeException e) {
            abandon();
            original.setAttribute(RequestDispatcher.ERROR_EXCEPTION, e);
            return failed("the operation threw", e);
        } catch (Error e) {
            abandon();
            throw e;
        }
        if (original.isAsyncStarted()) {
            abandon();
            return failed(
                    "the operation started asynchronous processing, which cannot run in the" + " request's transaction",
                    null);
        }
        Answer.Buffered answer = new Answer.Buffered(
                buffered.getStatus(), buffered.headerPairs(), buffered.cookies(), buffered.bodyBytes());
        if (answer.status() >= 500 || answer.status() < 100) {
            // failed (or nonsensical): nothing may stick, and a retry must run again
            abandon();
            return answer;
        }
        if (transaction.rollbackOnly()) {
            // the application rolled its work back itself: neither it nor an answer may stick
            abandon();
            return answer;
        }
        StoredResponse stored;
        try {
            stored = StoredAnswers.forStore(settings, original, answer);
        } catch (RuntimeException e) {
            abandon();
            return failed("the stored answer transform failed", e);
        }
        try {
            // the answer and the effects commit together (one round trip where the store can)
            transaction.completeAndCommit(
                    settings.store(), claim, stored, settings.clock().instant());
        } catch (ClaimLostException e) {
            abandon();
            LOG.log(Level.WARNING, "lease ran out and another request took over; rolled back", e);
            return new Answer.Problem(
                    ProblemType.IDEMPOTENCY_KEY_IN_USE,
                    settings.problemTypeBase(),
                    "a request with this Idempotency-Key is still being processed; retry later");
        } catch (IdempotencyStoreException | SQLException e) {
            abandon();
            return failed("storing the answer or committing failed", e);
        }
        return answer;
    }

    /**
     * Answers 500 (503 when the database cannot be reached) for an operation already
     * abandoned, so a retry runs again (the key is released after).
     */
    private Answer failed(String what, @Nullable Throwable cause) {
        LOG.log(Level.ERROR, what + " for " + claim.scope().route() + "; key released", cause);
        return new Answer.Problem(
                IdempotencyHandler.failureType(cause),
                settings.problemTypeBase(),
                "the request failed and had no effect; retrying it with the same Idempotency-Key is safe");
    }

    /** Ends the claimed operation without effects; the caller lets the key go. */
    private void abandon() {
        transaction.rollback();
    }
}
