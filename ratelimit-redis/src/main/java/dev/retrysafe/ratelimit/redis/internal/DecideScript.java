package dev.retrysafe.ratelimit.redis.internal;

import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.sync.RedisScriptingCommands;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;

/**
 * The decision script ({@code decide.lua}), run by its SHA-1 digest. The digest is computed here
 * rather than taken from {@code SCRIPT LOAD}, so no call waits for a load: the script is loaded
 * only when Redis answers {@code NOSCRIPT} (first use, a restart, {@code SCRIPT FLUSH}, a
 * failover to a replica that never saw it), and the call is then retried once. Threadsafe.
 */
public final class DecideScript {

    private static final String SOURCE = readSource();
    private static final String SHA1 = sha1(SOURCE);

    private DecideScript() {}

    /** The script's text. */
    public static String source() {
        return SOURCE;
    }

    /** The script's SHA-1 digest, as {@code EVALSHA} takes it. */
    public static String sha1() {
        return SHA1;
    }

    /** Runs the script on {@code redis} with {@code call}'s keys and arguments. */
    public static List<Object> run(RedisScriptingCommands<String, String> redis, ScriptCall call) {
        try {
            return evalsha(redis, call);
        } catch (RedisNoScriptException e) {
            redis.scriptLoad(SOURCE);
            return evalsha(redis, call);
        }
    }

    private static List<Object> evalsha(RedisScriptingCommands<String, String> redis, ScriptCall call) {
        return redis.evalsha(SHA1, ScriptOutputType.MULTI, call.keys(), call.arguments());
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

    private static String sha1(String text) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-1").digest(text.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-1", e);
        }
    }
}
