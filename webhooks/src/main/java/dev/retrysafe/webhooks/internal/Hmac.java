package dev.retrysafe.webhooks.internal;

import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.NoSuchAlgorithmException;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * HMAC-SHA256 of the Standard Webhooks signed content {@code id.timestamp.body} under one key.
 * A keyed prototype is cloned per computation: cloning skips the provider lookup and the key
 * schedule, and a clone is never shared, so this class is threadsafe.
 */
public final class Hmac {

    /** Bytes of an HMAC-SHA256 output, and so of every {@code v1} signature. */
    public static final int LENGTH = 32;

    private static final String ALGORITHM = "HmacSHA256";
    private static final byte DOT = '.';

    private final Mac prototype;
    private final SecretKeySpec keySpec;

    /** An HMAC under {@code key} (not copied: callers pass their own copy). */
    public Hmac(byte[] key) {
        this.keySpec = new SecretKeySpec(key, ALGORITHM);
        this.prototype = newMac(keySpec);
    }

    /** The MAC of {@code id + "." + timestamp + "." + body}, the id and timestamp in UTF-8. */
    public byte[] sign(String id, long timestamp, byte[] body) {
        Mac mac = fresh();
        // fed in parts: the body is never copied into a joined array
        mac.update((id + '.' + timestamp).getBytes(StandardCharsets.UTF_8));
        mac.update(DOT);
        mac.update(body);
        return mac.doFinal();
    }

    private Mac fresh() {
        try {
            return (Mac) prototype.clone();
        } catch (CloneNotSupportedException e) {
            // a provider whose Mac cannot be cloned: initialise a new one (slower, same result)
            return newMac(keySpec);
        }
    }

    private static Mac newMac(SecretKeySpec keySpec) {
        try {
            Mac mac = Mac.getInstance(ALGORITHM);
            mac.init(keySpec);
            return mac;
        } catch (NoSuchAlgorithmException | InvalidKeyException e) {
            throw new IllegalStateException(
                    "this JDK cannot compute " + ALGORITHM + ", which every Java SE implementation must support", e);
        }
    }
}
