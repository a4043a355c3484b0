package dev.retrysafe.ratelimit.redis.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The decision script ({@code decide.lua}): its text and its SHA-1 digest, by which every transport
 * ({@code internal.transport}) runs it. The digest is computed here rather than taken from
 * {@code SCRIPT LOAD}, so no call waits for a load. When a node answers
 * {@code NOSCRIPT} (first use, a restart, {@code SCRIPT FLUSH}, a failover to a replica that never
 * saw it, a Cluster slot moved to a master that never ran it), the call is made once more with
 * {@code EVAL} and the script's text: that goes where the keys are (in a Cluster, to the master of
 * their slot, redirections followed), decides in the same round trip, and leaves the script in
 * that node's cache for the digest. {@code SCRIPT LOAD} would need a round trip of its own, and in
 * a Cluster it carries no key to route it to the node that lacks the script. Threadsafe.
 */
public final class DecideScript {

    private static final String SOURCE = readSource();
    private static final byte[] SOURCE_BYTES = SOURCE.getBytes(StandardCharsets.UTF_8);
    private static final String SHA1 = sha1(SOURCE_BYTES);

    private DecideScript() {}

    /** The script's text. */
    public static String source() {
        return SOURCE;
    }

    /** The script's text in UTF-8, as {@code EVAL} takes it. */
    public static byte[] sourceBytes() {
        return SOURCE_BYTES;
    }

    /** The script's SHA-1 digest, as {@code EVALSHA} takes it. */
    public static String sha1() {
        return SHA1;
    }

    private static String readSource() {
        try (InputStream in = DecideScript.class.getResourceAsStream("decide.lua")) {
            if (in == null) {
                throw new IllegalStateException("decide.lua is missing from the retrysafe-ratelimit-redis jar");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read decide.lua", e);
        }
    }

    private static String sha1(byte[] text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1").digest(text));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-1", e);
        }
    }
}
