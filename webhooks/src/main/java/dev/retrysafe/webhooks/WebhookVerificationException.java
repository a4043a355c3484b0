package dev.retrysafe.webhooks;

import java.util.Objects;

/**
 * A delivery failed verification: it must not be acted on. Answer {@code 400} (never a 2xx, which
 * would tell the sender it was handled). The {@link #reason()} is coarse on purpose: it tells an
 * honest integrator what to fix and tells a forger nothing about how close a guess came. The
 * message never contains a secret or a signature. Immutable and threadsafe.
 */
public final class WebhookVerificationException extends Exception {

    private static final long serialVersionUID = 1L;

    /** Why a delivery was rejected. */
    public enum Reason {
        /** {@code webhook-id}, {@code webhook-timestamp} or {@code webhook-signature} is absent or empty. */
        MISSING_HEADER("a webhook-id, webhook-timestamp or webhook-signature header is missing"),
        /** A header is longer, or holds more signatures, than the verifier reads. */
        HEADER_TOO_LARGE("a webhook header is longer than allowed"),
        /** {@code webhook-timestamp} is not a whole number of seconds since the epoch. */
        INVALID_TIMESTAMP("webhook-timestamp is not a number of seconds since the epoch"),
        /** The timestamp is further in the past than the tolerance: a late or replayed message. */
        TIMESTAMP_TOO_OLD("timestamp outside tolerance (too old): a replay, or the sender's or our clock is wrong"),
        /** The timestamp is further in the future than the tolerance. */
        TIMESTAMP_TOO_NEW("timestamp outside tolerance (in the future): the sender's or our clock is wrong"),
        /** The signature list is empty or an entry is not {@code version,base64} of the right length. */
        MALFORMED_SIGNATURE("webhook-signature is not a space-separated list of version,signature"),
        /** No {@code v1} signature matches any secret: wrong secret, or the id, timestamp or body changed. */
        NO_MATCHING_SIGNATURE("signature mismatch: wrong secret, or the id, timestamp or body was changed");

        private final String description;

        Reason(String description) {
            this.description = description;
        }

        /** One line for a person debugging an integration. */
        public String description() {
            return description;
        }
    }

    private final Reason reason;

    /** A rejection for {@code reason}, with {@code detail} (which must hold nothing secret). */
    public WebhookVerificationException(Reason reason, String detail) {
        super(
                Objects.requireNonNull(reason, "reason").description() + (detail.isEmpty() ? "" : " (" + detail + ")"),
                null,
                false,
                false);
        this.reason = reason;
    }

    /** Why the delivery was rejected. */
    public Reason reason() {
        return reason;
    }
}
