package dev.retrysafe.servlet.internal;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

/**
 * The rate-limit budget a request spent, left on it by the rate-limit filter so that a later
 * filter can give it back when the request turns out to cost nothing. An internal protocol
 * between this module's filters, not an API. Every request is
 * charged as it arrives, before its body is read, so that a client cannot hold requests open for
 * free; the idempotency filter then refunds the answers a correct client's retry gets (a
 * replay, a {@code 409}) and those it gives because its own store is down. Implementations are
 * used by one request, on its thread.
 */
public interface RequestCharge {

    /** The request attribute under which the charge is put. */
    String ATTRIBUTE = RequestCharge.class.getName();

    /**
     * Gives back what the request spent and sets the budget headers on {@code response} to the
     * state after the refund.
     */
    void refund(HttpServletResponse response);

    /**
     * Refunds the charge on {@code request}, if an earlier filter left one, and removes it, so
     * that it is refunded once.
     */
    static void refund(HttpServletRequest request, HttpServletResponse response) {
        if (request.getAttribute(ATTRIBUTE) instanceof RequestCharge charge) {
            request.removeAttribute(ATTRIBUTE);
            charge.refund(response);
        }
    }
}
