package dev.retrysafe.delivery.internal;

import java.security.SecureRandom;
import java.time.Instant;
import java.util.HexFormat;

/**
 * Resource ids of this module ({@code we_}, {@code msg_}, {@code att_}, {@code evt_}): the prefix,
 * then 26 characters of lower-case Crockford base32 holding 48 bits of epoch milliseconds and 80
 * random bits, so ids sort by creation time (list pagination relies on it) and cannot be guessed.
 * Also lease tokens. Threadsafe.
 */
public final class ResourceIds {

    /** Prefix of webhook endpoint ids. */
    public static final String ENDPOINT = "we_";
    /** Prefix of delivery ids, which are also the {@code webhook-id} of every attempt. */
    public static final String DELIVERY = "msg_";
    /** Prefix of attempt ids. */
    public static final String ATTEMPT = "att_";
    /** Prefix of event ids made by this module (the disabled-endpoint event). */
    public static final String EVENT = "evt_";

    private static final char[] BASE32 = "0123456789abcdefghjkmnpqrstvwxyz".toCharArray();
    private static final int BODY_LENGTH = 26;
    private static final SecureRandom RANDOM = new SecureRandom();

    private ResourceIds() {}

    /** A new id with {@code prefix}, stamped with {@code at}. */
    public static String next(String prefix, Instant at) {
        byte[] random = new byte[10];
        RANDOM.nextBytes(random);
        // 48 time bits followed by 80 random bits, written 5 bits per character from the right;
        // 130 bits of room, so the first character only ever holds the top bits of the time
        long time = at.toEpochMilli() & 0xFFFF_FFFF_FFFFL;
        long high = (time << 16) | ((random[0] & 0xFFL) << 8) | (random[1] & 0xFFL);
        long low = 0;
        for (int i = 2; i < random.length; i++) {
            low = (low << 8) | (random[i] & 0xFFL);
        }
        char[] body = new char[BODY_LENGTH];
        for (int i = BODY_LENGTH - 1; i >= 0; i--) {
            body[i] = BASE32[(int) (low & 0x1F)];
            low = (low >>> 5) | ((high & 0x1F) << 59);
            high >>>= 5;
        }
        return prefix + new String(body);
    }

    /** A random token naming one claim of a batch of deliveries. */
    public static String leaseToken() {
        byte[] bytes = new byte[16];
        RANDOM.nextBytes(bytes);
        return HexFormat.of().formatHex(bytes);
    }
}
