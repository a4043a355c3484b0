package dev.retrysafe.server.db;

import java.security.SecureRandom;
import java.time.Clock;
import java.util.regex.Pattern;

/**
 * Resource ids such as {@code pay_01jh8x3k9q7w2m4n6p8r0t2v4x}: a prefix, then 26 characters of
 * Crockford base32 (lower case) encoding 48 bits of epoch milliseconds and 80 random bits. Ids
 * therefore sort by creation time, which is what list pagination relies on, and cannot be
 * guessed. This class is threadsafe.
 */
public final class Ids {

    private static final char[] ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz".toCharArray();
    private static final Pattern BODY = Pattern.compile("[0-9a-hjkmnp-tv-z]{26}");
    private static final SecureRandom RANDOM = new SecureRandom();

    private final Clock clock;

    /** Ids stamped with {@code clock}'s time. */
    public Ids(Clock clock) {
        this.clock = clock;
    }

    /** A new id with {@code prefix} (such as {@code pay_}). */
    public String next(String prefix) {
        byte[] random = new byte[10];
        RANDOM.nextBytes(random);
        long millis = clock.millis() & 0xFFFF_FFFF_FFFFL;
        // 128 bits as two longs: 48 time bits + 16 random, then 64 random
        long hi = (millis << 16) | ((random[0] & 0xFFL) << 8) | (random[1] & 0xFFL);
        long lo = 0;
        for (int i = 2; i < 10; i++) {
            lo = (lo << 8) | (random[i] & 0xFFL);
        }
        char[] out = new char[26];
        // 26 * 5 = 130 bits: the first character carries only the top 3 bits
        for (int i = 25; i >= 0; i--) {
            out[i] = ALPHABET[(int) (lo & 31)];
            lo = (lo >>> 5) | ((hi & 31) << 59);
            hi >>>= 5;
        }
        return prefix + new String(out);
    }

    /** Whether {@code id} has the form of an id with {@code prefix} (it may still not exist). */
    public static boolean looksLike(String prefix, String id) {
        return id.startsWith(prefix)
                && BODY.matcher(id.substring(prefix.length())).matches();
    }
}
