package dev.retrysafe.servlet;

import dev.retrysafe.idempotency.StoredResponse;
import jakarta.servlet.http.HttpServletRequest;

/**
 * Changes the answers of one route on their way into the idempotency store and back out, so that
 * what is stored need not hold what must not be kept: a secret, a one-time token, a field that is
 * only right at the moment it is read. Set with
 * {@link IdempotencyFilter.Builder#storedAnswerTransform}. Implementations must be threadsafe.
 *
 * <p>A typical transform blanks a secret in {@link #toStored} and puts the current one back in
 * {@link #toReplay}, read from where the application keeps it, so that a retry gets a secret
 * that works now rather than one that may since have been rotated or deleted.
 */
public interface StoredAnswerTransform {

    /**
     * What is stored of {@code answer}, the operation's answer (below 500, with only the stored
     * headers) to {@code request}. Runs after the operation, in its transaction (still bound to
     * the request: {@link RequestTransaction#connection}), before the answer is stored and
     * committed with the effects. The client's first answer is sent unchanged. An exception rolls
     * everything back, releases the key and answers {@code 500}, so a retry runs again.
     */
    StoredResponse toStored(HttpServletRequest request, StoredResponse answer);

    /**
     * What a retry, {@code request}, is answered from {@code stored} (what {@link #toStored}
     * returned, or what an earlier version of the application stored). Runs after the key's
     * transaction has ended and its connection is back in the pool, with no transaction bound to
     * the request, so it may open a connection of its own. The answer is sent with
     * {@code Idempotent-Replayed: true}. An exception answers {@code 500} ({@code 503} when the
     * database cannot be reached), retryable; the stored answer stays for the next retry.
     */
    StoredResponse toReplay(HttpServletRequest request, StoredResponse stored);
}
