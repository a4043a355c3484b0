package dev.retrysafe.servlet.internal;

import jakarta.servlet.http.HttpServletRequest;
import org.jspecify.annotations.Nullable;

/**
 * What the public filters, installed one by one with other filters between them, pass on to the
 * next through request attributes: the rate limit's {@link Admission} and the body the body
 * filter read. The only place these attributes are named; {@code RequestDecisions} passes the
 * same values as arguments instead. Stateless and threadsafe.
 */
public final class Handoff {

    private static final String ADMISSION = Handoff.class.getName() + ".admission";
    private static final String BODY = Handoff.class.getName() + ".body";

    private Handoff() {}

    /** Leaves {@code admission} on {@code request} for the idempotency filter. */
    public static void admitted(HttpServletRequest request, Admission admission) {
        request.setAttribute(ADMISSION, admission);
    }

    /** What the rate-limit filter left on {@code request}; {@link Admission#FREE} if it left nothing. */
    public static Admission admission(HttpServletRequest request) {
        return request.getAttribute(ADMISSION) instanceof Admission admission ? admission : Admission.FREE;
    }

    /** Leaves the body read by the body filter on {@code request}. */
    public static void bodyRead(HttpServletRequest request, byte[] body) {
        request.setAttribute(BODY, body);
    }

    /** The body the body filter read, or {@code null} when none did. */
    public static byte @Nullable [] body(HttpServletRequest request) {
        return request.getAttribute(BODY) instanceof byte[] body ? body : null;
    }
}
