package dev.retrysafe.servlet.internal;

import jakarta.servlet.http.HttpServletResponse;

/**
 * What the rate limit let through for one request: the budget it spent, which a later step gives
 * back when the request turns out to cost nothing (a replay, a {@code 409}, the idempotency
 * store down). Every request is charged as it arrives, before its body is read, so that a client
 * cannot hold requests open for free. An admission also holds the request's concurrency slots,
 * which the rate-limit step itself gives back ({@link #release()}) once the request has ended.
 * Used by one request, on its thread, except {@link #release()}, which an asynchronous request's
 * completion may call from another thread.
 */
@FunctionalInterface
public interface Admission {

    /** A request that spent nothing: no policy applied, or it was exempt. */
    Admission FREE = response -> {};

    /**
     * Gives back what the request spent, at most once however often it is called, and sets the
     * budget headers on {@code response} to the state after the refund.
     */
    void refund(HttpServletResponse response);

    /**
     * Gives back the concurrency slots the request holds, at most once however often it is
     * called; threadsafe. Called by the rate-limit step when the request has ended in any way.
     */
    default void release() {}
}
