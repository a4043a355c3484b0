package dev.retrysafe.webhooks;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;
import java.util.Objects;

/**
 * A delivery whose signature, id and timestamp checked out: the body is the sender's, unchanged,
 * and recent. Immutable and threadsafe (the body is copied in and out).
 *
 * @param id the {@code webhook-id}, the key to de-duplicate on
 * @param timestamp the attempt's {@code webhook-timestamp}
 * @param body the exact bytes received
 */
public record VerifiedWebhook(String id, Instant timestamp, byte[] body) {

    /** Copies the body. */
    public VerifiedWebhook {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(timestamp, "timestamp");
        body = body.clone();
    }

    /** A copy of the body. */
    @Override
    public byte[] body() {
        return body.clone();
    }

    /** The body decoded as UTF-8 (JSON is UTF-8). */
    public String bodyAsString() {
        return new String(body, StandardCharsets.UTF_8);
    }

    /** Equal id, timestamp and body bytes. */
    @Override
    public boolean equals(@org.jspecify.annotations.Nullable Object other) {
        return other instanceof VerifiedWebhook that
                && id.equals(that.id)
                && timestamp.equals(that.timestamp)
                && Arrays.equals(body, that.body);
    }

    @Override
    public int hashCode() {
        return Objects.hash(id, timestamp, Arrays.hashCode(body));
    }

    /** Id, timestamp and body length; a body may hold personal data, so it is not printed. */
    @Override
    public String toString() {
        return "VerifiedWebhook[id=" + id + ", timestamp=" + timestamp + ", body=" + body.length + " bytes]";
    }
}
