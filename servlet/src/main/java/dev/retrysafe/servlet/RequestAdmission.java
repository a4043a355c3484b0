package dev.retrysafe.servlet;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import org.jspecify.annotations.Nullable;

/**
 * A decision, put on the request by an earlier filter, that the {@link IdempotencyFilter} takes
 * only once it knows the request will run (after it has claimed the key, or when it lets the
 * request pass without one) or that the client erred (no key, a malformed one, a body too large,
 * a key reused with another request: {@code 400}, {@code 413}, {@code 422}). Replays and
 * {@code 409}s never reach it. This is how {@link RateLimitFilter} charges no budget for the
 * answers a correct client's retry gets, while a loop of client errors is limited like any
 * other, and how a {@code 429} is never stored as the key's answer: a refused request releases
 * its claim. Implementations are used by one request, on its thread.
 */
public interface RequestAdmission {

    /** The request attribute under which the admission is put. */
    String ATTRIBUTE = RequestAdmission.class.getName();

    /**
     * Decides whether the request runs.
     *
     * @return {@code true} to run it; {@code false} after writing the complete refusal to
     *     {@code response} (which the idempotency filter then neither stores nor changes)
     */
    boolean admit(HttpServletRequest request, HttpServletResponse response) throws IOException;

    /**
     * Called instead of {@link #admit} when the request will not run and the client did nothing
     * wrong (a replay, a {@code 409}, the idempotency store unavailable), just before its answer
     * is written: the place to add headers every answer carries. Nothing is spent.
     */
    default void waive(HttpServletRequest request, HttpServletResponse response) {
    }

    /** The admission waiting on {@code request}, if an earlier filter left one. */
    static @Nullable RequestAdmission of(HttpServletRequest request) {
        return request.getAttribute(ATTRIBUTE) instanceof RequestAdmission admission ? admission : null;
    }

    /**
     * Runs the admission waiting on {@code request}, if any, and removes it so that it is decided
     * once.
     *
     * @return whether the request may run (true when no admission waits)
     */
    static boolean decide(HttpServletRequest request, HttpServletResponse response) throws IOException {
        RequestAdmission admission = of(request);
        if (admission == null) {
            return true;
        }
        request.removeAttribute(ATTRIBUTE);
        return admission.admit(request, response);
    }

    /** Waives the admission waiting on {@code request}, if any (see {@link #waive}). */
    static void waiveIfWaiting(HttpServletRequest request, HttpServletResponse response) {
        RequestAdmission admission = of(request);
        if (admission != null) {
            request.removeAttribute(ATTRIBUTE);
            admission.waive(request, response);
        }
    }
}
