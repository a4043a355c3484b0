package dev.retrysafe.webhooks.internal;

import dev.retrysafe.webhooks.HeaderLookup;
import dev.retrysafe.webhooks.SignedHeaders;
import dev.retrysafe.webhooks.VerifiedWebhook;
import dev.retrysafe.webhooks.WebhookVerificationException;
import dev.retrysafe.webhooks.WebhookVerificationException.Reason;
import dev.retrysafe.webhooks.WebhookVerifier;
import java.security.MessageDigest;
import java.time.Instant;
import java.util.List;

/** The verifier; see {@link WebhookVerifier} for the steps. Immutable and threadsafe. */
public final class DefaultVerifier implements WebhookVerifier {

    private final List<Hmac> hmacs;
    private final long toleranceSeconds;
    private final VerifierConfig config;

    /** A verifier with {@code config}. */
    public DefaultVerifier(VerifierConfig config) {
        this.config = config;
        this.hmacs = config.keys().stream().map(Hmac::new).toList();
        this.toleranceSeconds = config.tolerance().getSeconds();
    }

    @Override
    public VerifiedWebhook verify(HeaderLookup headers, byte[] body) throws WebhookVerificationException {
        String id = header(headers, SignedHeaders.WEBHOOK_ID, MAX_ID_LENGTH);
        String timestampText = header(headers, SignedHeaders.WEBHOOK_TIMESTAMP, MAX_TIMESTAMP_LENGTH);
        String signatures = headers.get(SignedHeaders.WEBHOOK_SIGNATURE);
        if (signatures == null) {
            throw missing(SignedHeaders.WEBHOOK_SIGNATURE);
        }
        checkLength(SignedHeaders.WEBHOOK_SIGNATURE, signatures, MAX_SIGNATURE_HEADER_LENGTH);

        long timestamp = parseTimestamp(timestampText);
        checkFreshness(timestamp);
        List<byte[]> candidates = SignatureHeader.v1Signatures(signatures);
        if (candidates.isEmpty()) {
            throw new WebhookVerificationException(Reason.NO_MATCHING_SIGNATURE, "no v1 signature");
        }
        if (!matches(id, timestamp, body, candidates)) {
            // deliberately the same answer for every wrong candidate, however many bytes were right
            throw new WebhookVerificationException(Reason.NO_MATCHING_SIGNATURE, "");
        }
        return new VerifiedWebhook(id, Instant.ofEpochSecond(timestamp), body);
    }

    /**
     * True if any candidate equals the HMAC under any key. Every pair is compared, with
     * {@link MessageDigest#isEqual} on two 32-byte arrays (the parser guarantees the length), so
     * the time taken depends on how many candidates and keys there are, never on their contents.
     */
    private boolean matches(String id, long timestamp, byte[] body, List<byte[]> candidates) {
        boolean matched = false;
        for (Hmac hmac : hmacs) {
            byte[] expected = hmac.sign(id, timestamp, body);
            for (byte[] candidate : candidates) {
                matched |= MessageDigest.isEqual(expected, candidate);
            }
        }
        return matched;
    }

    private void checkFreshness(long timestamp) throws WebhookVerificationException {
        long now = config.clock().instant().getEpochSecond();
        // both values are below 10^18, so neither difference overflows
        if (now - timestamp > toleranceSeconds) {
            throw new WebhookVerificationException(
                    Reason.TIMESTAMP_TOO_OLD, (now - timestamp) + " s old, tolerance " + toleranceSeconds + " s");
        }
        if (timestamp - now > toleranceSeconds) {
            throw new WebhookVerificationException(
                    Reason.TIMESTAMP_TOO_NEW, (timestamp - now) + " s ahead, tolerance " + toleranceSeconds + " s");
        }
    }

    /** Decimal digits only: no sign, spaces or fractions, unlike JavaScript's lenient parseInt. */
    private static long parseTimestamp(String text) throws WebhookVerificationException {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c < '0' || c > '9') {
                throw new WebhookVerificationException(Reason.INVALID_TIMESTAMP, "not decimal digits");
            }
        }
        return Long.parseLong(text); // at most 18 digits: always fits
    }

    private static String header(HeaderLookup headers, String name, int maxLength) throws WebhookVerificationException {
        String value = headers.get(name);
        if (value == null || value.isEmpty()) {
            throw missing(name);
        }
        checkLength(name, value, maxLength);
        return value;
    }

    private static void checkLength(String name, String value, int maxLength) throws WebhookVerificationException {
        if (value.length() > maxLength) {
            throw new WebhookVerificationException(
                    Reason.HEADER_TOO_LARGE, name + " is longer than " + maxLength + " characters");
        }
    }

    private static WebhookVerificationException missing(String name) {
        return new WebhookVerificationException(Reason.MISSING_HEADER, name);
    }
}
