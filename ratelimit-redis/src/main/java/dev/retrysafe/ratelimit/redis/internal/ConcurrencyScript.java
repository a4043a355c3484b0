package dev.retrysafe.ratelimit.redis.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The concurrency script ({@code concurrency.lua}): its text and SHA-1 digest, run by digest and
 * sent as text where a node lacks it, as {@link DecideScript} explains. Threadsafe.
 */
public final class ConcurrencyScript {

    private static final byte[] SOURCE = read();
    private static final String SHA1 = sha1(SOURCE);

    private ConcurrencyScript() {}

    /** The script's text in UTF-8. */
    public static byte[] sourceBytes() {
        return SOURCE.clone();
    }

    /** The script's SHA-1 digest. */
    public static String sha1() {
        return SHA1;
    }

    private static byte[] read() {
        try (InputStream in = ConcurrencyScript.class.getResourceAsStream("concurrency.lua")) {
            if (in == null) {
                throw new IllegalStateException("concurrency.lua is missing from the retrysafe-ratelimit-redis jar");
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read concurrency.lua", e);
        }
    }

    private static String sha1(byte[] text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1").digest(text));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-1", e);
        }
    }

    /** The key of {@code policy}'s slots for {@code key}: {@code <prefix>{<partition>}:cc:<policy>:<key>}. */
    public static String key(String prefix, String partition, String policy, String key) {
        return prefix + '{' + KeyLayout.hashTag(partition) + "}:cc:" + policy + ':' + key;
    }

    /** Text as the script's argument. */
    public static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
