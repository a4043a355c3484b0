package dev.retrysafe.webhooks.internal;

import dev.retrysafe.webhooks.WebhookVerificationException;
import dev.retrysafe.webhooks.WebhookVerificationException.Reason;
import dev.retrysafe.webhooks.WebhookVerifier;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * Reads a {@code webhook-signature} value: entries {@code version,value} separated by spaces.
 * Everything here depends on the header alone, never on a secret, so what it rejects (an entry
 * without a comma, a {@code v1} value that is not the base64 of 32 bytes) tells a sender nothing
 * about the right signature. Threadsafe (stateless).
 */
public final class SignatureHeader {

    /** The version label of HMAC-SHA256 signatures. */
    public static final String V1 = "v1";

    // base64 of 32 bytes: 43 characters and one '=' of padding
    private static final int V1_ENCODED_LENGTH = 4 * ((Hmac.LENGTH + 2) / 3);

    private SignatureHeader() {}

    /**
     * The decoded {@code v1} signatures of {@code header}, in order; empty if it has only other
     * versions. The caller has already bounded the header's length.
     *
     * @throws WebhookVerificationException with {@link Reason#MALFORMED_SIGNATURE} or
     *     {@link Reason#HEADER_TOO_LARGE} (too many entries)
     */
    public static List<byte[]> v1Signatures(String header) throws WebhookVerificationException {
        List<byte[]> v1 = new ArrayList<>(2);
        int entries = 0;
        int length = header.length();
        int start = 0;
        while (start < length) {
            int end = header.indexOf(' ', start);
            if (end < 0) {
                end = length;
            }
            if (end > start) { // repeated spaces are tolerated: they separate nothing
                entries++;
                if (entries > WebhookVerifier.MAX_SIGNATURES) {
                    throw new WebhookVerificationException(
                            Reason.HEADER_TOO_LARGE, "more than " + WebhookVerifier.MAX_SIGNATURES + " signatures");
                }
                byte[] signature = entry(header, start, end, entries);
                if (signature != null) {
                    v1.add(signature);
                }
            }
            start = end + 1;
        }
        if (entries == 0) {
            throw new WebhookVerificationException(Reason.MALFORMED_SIGNATURE, "empty signature list");
        }
        return v1;
    }

    /** The decoded signature of a {@code v1} entry, null for another version. */
    private static byte @org.jspecify.annotations.Nullable [] entry(String header, int start, int end, int number)
            throws WebhookVerificationException {
        int comma = header.indexOf(',', start);
        if (comma < 0 || comma >= end) {
            throw malformed(number, "has no comma between version and signature");
        }
        if (comma == start) {
            throw malformed(number, "has no version");
        }
        if (comma == end - 1) {
            throw malformed(number, "has no signature after the comma");
        }
        if (!header.startsWith(V1, start) || comma != start + V1.length()) {
            return null; // another scheme (v1a, or a future one): not ours to judge
        }
        if (end - comma - 1 != V1_ENCODED_LENGTH) {
            throw malformed(number, "is a v1 signature of the wrong length");
        }
        byte[] signature;
        try {
            signature = Base64.getDecoder().decode(header.substring(comma + 1, end));
        } catch (IllegalArgumentException e) {
            throw malformed(number, "is a v1 signature that is not base64");
        }
        if (signature.length != Hmac.LENGTH) { // 31 or 33 bytes also encode to 44 characters
            throw malformed(number, "is a v1 signature of the wrong length");
        }
        return signature;
    }

    private static WebhookVerificationException malformed(int number, String problem) {
        return new WebhookVerificationException(Reason.MALFORMED_SIGNATURE, "entry " + number + " " + problem);
    }
}
