package dev.retrysafe.webhooks;

import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A symmetric signing secret of the Standard Webhooks specification: 24 to 64 random bytes
 * (192 to 512 bits), shown to people as {@code whsec_} followed by the standard base64 of the
 * bytes. The bytes themselves, not the text, are the HMAC-SHA256 key.
 *
 * <p>A secret never appears in {@link #toString()} or in an exception message, so it cannot leak
 * into logs by accident; only {@link #encoded()} reveals it. Immutable and threadsafe.
 */
public final class WebhookSecret {

    /** The prefix that marks a symmetric Standard Webhooks secret. */
    public static final String PREFIX = "whsec_";
    /** Fewest key bytes (192 bits), the specification's minimum. */
    public static final int MIN_BYTES = 24;
    /** Most key bytes (512 bits), the specification's maximum. */
    public static final int MAX_BYTES = 64;
    /** Key bytes of a {@linkplain #generate() generated} secret (256 bits, HMAC-SHA256's output size). */
    public static final int DEFAULT_BYTES = 32;

    // one generator for the process: SecureRandom is threadsafe and seeding it is the slow part
    private static final SecureRandom RANDOM = new SecureRandom();
    // base64 of MAX_BYTES is 88 characters; anything much longer is not a secret, whatever it holds
    private static final int MAX_ENCODED_LENGTH = PREFIX.length() + 4 * ((MAX_BYTES + 2) / 3);

    private final byte[] key;

    private WebhookSecret(byte[] key) {
        this.key = key;
    }

    /** A new random secret of {@value #DEFAULT_BYTES} bytes. */
    public static WebhookSecret generate() {
        return generate(DEFAULT_BYTES);
    }

    /**
     * A new random secret of {@code bytes} bytes from {@link SecureRandom}.
     *
     * @throws IllegalArgumentException if {@code bytes} is not within 24..64
     */
    public static WebhookSecret generate(int bytes) {
        checkLength(bytes);
        byte[] key = new byte[bytes];
        RANDOM.nextBytes(key);
        return new WebhookSecret(key);
    }

    /**
     * The secret with these key bytes (copied).
     *
     * @throws IllegalArgumentException if there are not 24 to 64 bytes
     */
    public static WebhookSecret fromBytes(byte[] key) {
        checkLength(key.length);
        return new WebhookSecret(key.clone());
    }

    /**
     * Parses {@code whsec_} + base64 (standard alphabet, padding optional). The message of a
     * rejection says what is wrong and never repeats the text, which may be a real secret with a
     * typo.
     *
     * @throws IllegalArgumentException if the prefix is missing, the rest is not base64, or it
     *     does not decode to 24 to 64 bytes
     */
    public static WebhookSecret parse(String text) {
        Objects.requireNonNull(text, "text");
        if (!text.startsWith(PREFIX)) {
            throw new IllegalArgumentException("webhook secret must start with '" + PREFIX
                    + "' followed by base64 (the text given does not; it is not repeated here)");
        }
        if (text.length() > MAX_ENCODED_LENGTH) {
            throw new IllegalArgumentException("webhook secret is too long: " + text.length() + " characters, at most "
                    + MAX_ENCODED_LENGTH + " (" + MAX_BYTES + " bytes)");
        }
        byte[] key;
        try {
            key = Base64.getDecoder().decode(text.substring(PREFIX.length()));
        } catch (IllegalArgumentException e) {
            // the decoder's message quotes the offending character; say less
            throw new IllegalArgumentException(
                    "webhook secret after '" + PREFIX
                            + "' is not valid base64 (standard alphabet A-Z a-z 0-9 + /, optional = padding)",
                    null);
        }
        if (key.length < MIN_BYTES || key.length > MAX_BYTES) {
            throw new IllegalArgumentException(
                    "webhook secret must decode to " + MIN_BYTES + " to " + MAX_BYTES + " bytes, was " + key.length);
        }
        return new WebhookSecret(key);
    }

    /** The secret as shown to people and stored in configuration: {@code whsec_} + base64, padded. */
    public String encoded() {
        return PREFIX + Base64.getEncoder().encodeToString(key);
    }

    /** How many key bytes the secret has. */
    public int length() {
        return key.length;
    }

    /** The key itself, not copied: for this package's signer and verifier builders, which copy it. */
    byte[] key() {
        return key;
    }

    /** Compares the key bytes in constant time. */
    @Override
    public boolean equals(@Nullable Object other) {
        return other instanceof WebhookSecret that && MessageDigest.isEqual(key, that.key);
    }

    /** The length only: a hash of the key would be a (weak) fingerprint of it. */
    @Override
    public int hashCode() {
        return key.length;
    }

    /** Says how long the secret is and nothing else. */
    @Override
    public String toString() {
        return "WebhookSecret[" + key.length + " bytes, redacted]";
    }

    private static void checkLength(int bytes) {
        if (bytes < MIN_BYTES || bytes > MAX_BYTES) {
            throw new IllegalArgumentException(
                    "webhook secret length must be " + MIN_BYTES + " to " + MAX_BYTES + " bytes, was " + bytes);
        }
    }
}
