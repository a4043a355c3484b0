package dev.retrysafe.webhooks;

import dev.retrysafe.webhooks.internal.DefaultSigner;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Signs deliveries the Standard Webhooks way: {@code v1,} + base64(HMAC-SHA256(key,
 * {@code id.timestamp.body})) for each secret, space-separated, in the order the secrets were
 * given. During a rotation, sign with the new secret and the old one, so receivers that know
 * either accept the delivery; afterwards, with the new one alone.
 *
 * <p>Sign the exact bytes that will be sent, and a fresh timestamp on every attempt (the
 * receiver rejects stale ones), keeping the id of the event. Implementations are immutable and
 * threadsafe.
 *
 * <pre>{@code
 * WebhookSigner signer = WebhookSigner.of(WebhookSecret.parse(endpoint.secret()));
 * SignedHeaders headers = signer.headers("msg_2KWPBgLlAfxdpx2AI54pPJ85f4W", clock.instant().getEpochSecond(), body);
 * }</pre>
 */
public interface WebhookSigner {

    /** Most secrets one signer signs with: a rotation needs two. */
    int MAX_SECRETS = 10;
    /** Longest id, in characters, that a signer accepts (and a verifier, and the JDBC de-duplicator). */
    int MAX_ID_LENGTH = 255;

    /**
     * The {@code webhook-signature} value of {@code body} sent with {@code id} at {@code timestamp}.
     *
     * @param id the message id: 1 to 255 visible ASCII characters without {@code .}, because the
     *     signed content joins id, timestamp and body with dots
     * @param timestamp seconds since the epoch, not negative
     * @param body the exact bytes of the request body (not copied, not changed)
     * @throws IllegalArgumentException if the id or timestamp break these rules
     */
    String sign(String id, long timestamp, byte[] body);

    /** The three headers of one attempt; see {@link #sign}. */
    default SignedHeaders headers(String id, long timestamp, byte[] body) {
        return new SignedHeaders(id, timestamp, sign(id, timestamp, body));
    }

    /** A signer with these secrets, in this order (1 to 10). */
    static WebhookSigner of(WebhookSecret first, WebhookSecret... more) {
        Builder builder = builder().secret(first);
        for (WebhookSecret secret : more) {
            builder.secret(secret);
        }
        return builder.build();
    }

    /** A builder of a signer; add at least one secret. */
    static Builder builder() {
        return new Builder();
    }

    /** Builds a {@link WebhookSigner}. Not threadsafe; the built signer is immutable. */
    final class Builder {
        private final List<WebhookSecret> secrets = new ArrayList<>();

        private Builder() {}

        /** Adds a secret; signatures appear in the order secrets were added. */
        public Builder secret(WebhookSecret secret) {
            Objects.requireNonNull(secret, "secret");
            if (secrets.size() == MAX_SECRETS) {
                throw new IllegalArgumentException("a signer takes at most " + MAX_SECRETS + " secrets");
            }
            secrets.add(secret);
            return this;
        }

        /** Adds every secret of {@code more}, in order. */
        public Builder secrets(Iterable<WebhookSecret> more) {
            more.forEach(this::secret);
            return this;
        }

        /**
         * The signer.
         *
         * @throws IllegalStateException if no secret was added
         */
        public WebhookSigner build() {
            if (secrets.isEmpty()) {
                throw new IllegalStateException("a signer needs at least one secret");
            }
            List<byte[]> keys = new ArrayList<>(secrets.size());
            for (WebhookSecret secret : secrets) {
                keys.add(secret.key().clone());
            }
            return new DefaultSigner(keys);
        }
    }
}
