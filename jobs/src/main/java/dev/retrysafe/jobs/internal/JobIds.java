package dev.retrysafe.jobs.internal;

import java.security.SecureRandom;
import java.util.Base64;
import java.util.HexFormat;

/**
 * Job ids and lease tokens, both from a {@link SecureRandom} so neither can be guessed: a job id
 * is {@code job_} and 24 URL-safe base64 characters (144 random bits); a lease token is 32 hex
 * characters (128 bits). Threadsafe.
 */
public final class JobIds {

    /** Prefix of every job id. */
    public static final String PREFIX = "job_";
    /** Random bytes in a job id: 18 bytes are exactly 24 base64 characters, no padding. */
    private static final int ID_BYTES = 18;

    private static final int TOKEN_BYTES = 16;
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final Base64.Encoder URL_SAFE = Base64.getUrlEncoder().withoutPadding();

    private JobIds() {}

    /** A new job id. */
    public static String jobId() {
        byte[] bytes = new byte[ID_BYTES];
        RANDOM.nextBytes(bytes);
        return PREFIX + URL_SAFE.encodeToString(bytes);
    }

    /** A new token naming one claim of one job. */
    public static String leaseToken() {
        byte[] bytes = new byte[TOKEN_BYTES];
        RANDOM.nextBytes(bytes);
        return HexFormat.of().formatHex(bytes);
    }
}
