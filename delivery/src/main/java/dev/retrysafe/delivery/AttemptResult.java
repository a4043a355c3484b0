package dev.retrysafe.delivery;

import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * What one attempt came to. {@link #succeeded()} exactly when the receiver answered {@code 2xx}.
 *
 * @param outcome    the class of the result
 * @param status     the HTTP status, when the receiver answered; {@code null} otherwise
 * @param latency    from the start of the attempt to its end
 * @param snippet    the first bytes of the answer's body, at most {@link #MAX_SNIPPET_BYTES}
 *                   (decoded as UTF-8, malformed input replaced)
 * @param retryAfter the receiver's {@code Retry-After}, if it sent a valid one
 * @param detail     for failures without a status: what went wrong, for people (no secrets)
 */
public record AttemptResult(
        Outcome outcome,
        @Nullable Integer status,
        Duration latency,
        String snippet,
        @Nullable Duration retryAfter,
        String detail) {

    /** The most of a receiver's answer that is read and kept. */
    public static final int MAX_SNIPPET_BYTES = 1024;

    /** The class of an attempt's result, as recorded in the attempt log. */
    public enum Outcome {
        /** {@code 2xx}. */
        SUCCESS,
        /** Any other status; redirects included (never followed). */
        HTTP_ERROR,
        /** No connection within the timeout, or no complete answer within it. */
        TIMEOUT,
        /** The connection was refused, reset or closed early. */
        CONNECTION_ERROR,
        /** The host did not resolve. */
        DNS_ERROR,
        /** The target (or an address it resolves to) is not allowed: SSRF guard. */
        BLOCKED,
        /** The URL or the answer could not be used at all (e.g. TLS failure, malformed response). */
        PROTOCOL_ERROR
    }

    public AttemptResult {
        Objects.requireNonNull(outcome, "outcome");
        Objects.requireNonNull(latency, "latency");
        Objects.requireNonNull(snippet, "snippet");
        Objects.requireNonNull(detail, "detail");
        if ((outcome == Outcome.SUCCESS || outcome == Outcome.HTTP_ERROR) != (status != null)) {
            throw new IllegalArgumentException(
                    "a status goes with SUCCESS and HTTP_ERROR only: " + outcome + " " + status);
        }
        if (outcome == Outcome.SUCCESS && (status < 200 || status > 299)) {
            throw new IllegalArgumentException("SUCCESS needs a 2xx status: " + status);
        }
    }

    /** Whether the receiver took the delivery ({@code 2xx}). */
    public boolean succeeded() {
        return outcome == Outcome.SUCCESS;
    }
}
