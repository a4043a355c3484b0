package dev.retrysafe.webhooks;

import dev.retrysafe.webhooks.internal.DefaultVerifier;
import dev.retrysafe.webhooks.internal.VerifierConfig;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Verifies a received delivery the Standard Webhooks way, in this order:
 * <ol>
 *   <li>{@code webhook-id}, {@code webhook-timestamp} and {@code webhook-signature} are present
 *       and no longer than {@link #MAX_ID_LENGTH}, {@link #MAX_TIMESTAMP_LENGTH} and
 *       {@link #MAX_SIGNATURE_HEADER_LENGTH} characters, the signature header holding at most
 *       {@link #MAX_SIGNATURES} entries. Longer input is rejected before any other work, so a
 *       10 MB header costs no more than a short one.</li>
 *   <li>the timestamp is decimal seconds since the epoch, within the tolerance (default 5
 *       minutes) of the clock, in both directions: older is a replay, newer a clock problem.</li>
 *   <li>the signature list is well formed: entries {@code version,value} separated by spaces.
 *       Entries of other versions than {@code v1} (such as the asymmetric {@code v1a}) are
 *       ignored; a {@code v1} value must be the base64 of 32 bytes.</li>
 *   <li>some {@code v1} signature equals the HMAC of {@code id.timestamp.body} under some secret,
 *       compared in constant time on equal-length byte arrays. Several secrets let a receiver
 *       accept the old and new secret while it rotates them.</li>
 * </ol>
 * The body is taken as the exact bytes received: read it raw, before any JSON parsing, since a
 * re-serialised copy of the same JSON does not verify. Work is bounded by the header limits and
 * the number of secrets (one HMAC of the body per secret); the body's size is the caller's limit.
 *
 * <p>Implementations are immutable and threadsafe.
 *
 * <pre>{@code
 * WebhookVerifier verifier = WebhookVerifier.builder().secret(WebhookSecret.parse(secret)).build();
 * try {
 *     VerifiedWebhook webhook = verifier.verify(request::getHeader, rawBody);
 * } catch (WebhookVerificationException e) {
 *     // answer 400; e.reason() says why
 * }
 * }</pre>
 */
public interface WebhookVerifier {

    /** The tolerance unless configured otherwise: 5 minutes, as in the specification's libraries. */
    Duration DEFAULT_TOLERANCE = Duration.ofMinutes(5);
    /** Longest {@code webhook-id} read, in characters. */
    int MAX_ID_LENGTH = WebhookSigner.MAX_ID_LENGTH;
    /** Longest {@code webhook-timestamp} read, in characters (seconds since the epoch fit in 12 until the year 33658). */
    int MAX_TIMESTAMP_LENGTH = 18;
    /**
     * Longest {@code webhook-signature} read, in characters: 16 entries of the longest standard
     * kind ({@code v1a}, 92 characters) fit, a rotation's two {@code v1} entries take 95.
     */
    int MAX_SIGNATURE_HEADER_LENGTH = 2048;
    /** Most entries of a {@code webhook-signature} header. */
    int MAX_SIGNATURES = 16;

    /**
     * Verifies one delivery.
     *
     * @param headers the request's headers
     * @param body the exact bytes of the request body (not copied, not changed)
     * @return the verified delivery
     * @throws WebhookVerificationException if the delivery must be rejected
     */
    VerifiedWebhook verify(HeaderLookup headers, byte[] body) throws WebhookVerificationException;

    /** A builder of a verifier; add at least one secret. */
    static Builder builder() {
        return new Builder();
    }

    /** Builds a {@link WebhookVerifier}. Not threadsafe; the built verifier is immutable. */
    final class Builder {
        private final List<WebhookSecret> secrets = new ArrayList<>();
        private Duration tolerance = DEFAULT_TOLERANCE;
        private Clock clock = Clock.systemUTC();

        private Builder() {}

        /** Adds a secret that may have signed deliveries (1 to 10; during a rotation, old and new). */
        public Builder secret(WebhookSecret secret) {
            Objects.requireNonNull(secret, "secret");
            if (secrets.size() == WebhookSigner.MAX_SECRETS) {
                throw new IllegalArgumentException(
                        "a verifier takes at most " + WebhookSigner.MAX_SECRETS + " secrets");
            }
            secrets.add(secret);
            return this;
        }

        /** Adds every secret of {@code more}. */
        public Builder secrets(Iterable<WebhookSecret> more) {
            more.forEach(this::secret);
            return this;
        }

        /**
         * How far the timestamp may be from the clock, either way: whole seconds, 1 second to 1 day
         * (default 5 minutes).
         */
        public Builder tolerance(Duration tolerance) {
            this.tolerance = VerifierConfig.checkTolerance(tolerance);
            return this;
        }

        /** The wall clock timestamps are compared with (default: the system clock). */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /**
         * The verifier.
         *
         * @throws IllegalStateException if no secret was added
         */
        public WebhookVerifier build() {
            if (secrets.isEmpty()) {
                throw new IllegalStateException("a verifier needs at least one secret");
            }
            List<byte[]> keys = new ArrayList<>(secrets.size());
            for (WebhookSecret secret : secrets) {
                keys.add(secret.key().clone());
            }
            return new DefaultVerifier(new VerifierConfig(keys, tolerance, clock));
        }
    }
}
