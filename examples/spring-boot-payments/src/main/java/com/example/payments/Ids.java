package com.example.payments;

import java.security.SecureRandom;
import java.time.Clock;
import java.util.regex.Pattern;

/**
 * Resource ids such as {@code pay_01jh8x3k9q7w2m4n6p8r0t2v4x}, the form the Retrysafe server uses:
 * a prefix and 26 characters of Crockford base32 (48 bits of epoch milliseconds, then 80 random
 * bits), so that ids sort by creation time (lists page by id) and cannot be guessed. Threadsafe.
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

    /** A new id starting with {@code prefix}. */
    public String next(String prefix) {
        byte[] random = new byte[10];
        RANDOM.nextBytes(random);
        char[] out = new char[26];
        // 130 bits written from the right: 80 random bits, then 48 bits of time (and 2 zero bits)
        int bit = 0;
        long time = clock.millis() & 0xFFFF_FFFF_FFFFL;
        for (int i = 25; i >= 0; i--, bit += 5) {
            out[i] = ALPHABET[(int) (bit < 80 ? randomBits(random, bit) : (time >>> (bit - 80)) & 31)];
        }
        return prefix + new String(out);
    }

    /** Whether {@code id} has the form of an id with {@code prefix} (it may still not exist). */
    public static boolean looksLike(String prefix, String id) {
        return id.startsWith(prefix)
                && BODY.matcher(id.substring(prefix.length())).matches();
    }

    private static long randomBits(byte[] random, int from) {
        long v = 0;
        for (int b = 0; b < 5; b++) {
            int bit = from + b;
            v |= (long) ((random[bit / 8] >>> (bit % 8)) & 1) << b;
        }
        return v;
    }
}
