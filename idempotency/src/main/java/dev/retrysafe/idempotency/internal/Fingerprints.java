package dev.retrysafe.idempotency.internal;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * Computes fingerprints. Every field is length-prefixed so that no two different
 * (method, template, body) triples can produce the same hashed byte sequence, and the domain tag
 * keeps canonical JSON and raw bytes apart. Stateless and threadsafe.
 */
public final class Fingerprints {

    private static final byte[] JSON_DOMAIN =
            "retrysafe/idempotency/fingerprint/v1/json".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] RAW_DOMAIN =
            "retrysafe/idempotency/fingerprint/v1/raw".getBytes(StandardCharsets.US_ASCII);

    private Fingerprints() {}

    /** The hex SHA-256 of the request; canonical JSON when the body is JSON, raw bytes otherwise. */
    public static String sha256Hex(String method, String routeTemplate, byte[] body) {
        byte[] canonical = CanonicalJson.canonicalize(body);
        MessageDigest digest = sha256();
        field(digest, canonical == null ? RAW_DOMAIN : JSON_DOMAIN);
        field(digest, method.getBytes(StandardCharsets.UTF_8));
        field(digest, routeTemplate.getBytes(StandardCharsets.UTF_8));
        field(digest, canonical == null ? body : canonical);
        return HexFormat.of().formatHex(digest.digest());
    }

    private static void field(MessageDigest digest, byte[] bytes) {
        long length = bytes.length;
        for (int shift = 56; shift >= 0; shift -= 8) {
            digest.update((byte) (length >>> shift));
        }
        digest.update(bytes);
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform must provide SHA-256", e);
        }
    }
}
