package dev.retrysafe.server.accounts;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HexFormat;

/**
 * API keys: {@code rs_} followed by 32 random bytes in base64url (256 bits, so a plain hash is
 * enough; a slow password hash would only slow every request). This class is threadsafe.
 */
public final class ApiKeys {

    /** Every generated key starts with this, so leaked keys are easy to spot and scan for. */
    public static final String PREFIX = "rs_";

    private static final SecureRandom RANDOM = new SecureRandom();

    private ApiKeys() {}

    /** A new random key. */
    public static String generate() {
        byte[] bytes = new byte[32];
        RANDOM.nextBytes(bytes);
        return PREFIX + Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    /** The lower-case hex SHA-256 of {@code key}: what is stored and looked up. */
    public static String hash(String key) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            return HexFormat.of().formatHex(sha.digest(key.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }
}
