package dev.retrysafe.idempotency;

import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The answer an operation gave, kept to be replayed to every retry: status, the few headers that
 * belong to the answer (such as {@code Content-Type} and {@code Location}) and the body bytes.
 * Immutable (the body is copied in and out) and threadsafe.
 *
 * @param status the HTTP status, 100 to 599
 * @param headers the headers to replay, in order
 * @param body the body bytes
 */
public record StoredResponse(int status, List<HeaderField> headers, byte[] body) {

    /** Checks the status and takes copies. */
    public StoredResponse {
        if (status < 100 || status > 599) {
            throw new IllegalArgumentException("status must be 100 to 599: " + status);
        }
        headers = List.copyOf(headers);
        body = body.clone();
    }

    /** A copy of the body bytes. */
    @Override
    public byte[] body() {
        return body.clone();
    }

    /** The first value of header {@code name} (case-insensitive), or {@code null}. */
    public @Nullable String header(String name) {
        for (HeaderField field : headers) {
            if (field.name().equalsIgnoreCase(name)) {
                return field.value();
            }
        }
        return null;
    }

    @Override
    public boolean equals(@Nullable Object other) {
        return other instanceof StoredResponse that
                && status == that.status
                && headers.equals(that.headers)
                && Arrays.equals(body, that.body);
    }

    @Override
    public int hashCode() {
        return 31 * (31 * status + headers.hashCode()) + Arrays.hashCode(body);
    }

    @Override
    public String toString() {
        String preview = HexFormat.of().formatHex(body, 0, Math.min(body.length, 16));
        return "StoredResponse[status=" + status + ", headers=" + headers + ", body=" + body.length + " bytes ("
                + preview + (body.length > 16 ? "...)" : ")") + "]";
    }
}
