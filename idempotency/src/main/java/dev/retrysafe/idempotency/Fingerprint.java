package dev.retrysafe.idempotency;

import dev.retrysafe.idempotency.internal.Fingerprints;
import java.util.regex.Pattern;

/**
 * What makes two requests "the same request" for an idempotency key: the lowercase hex SHA-256
 * of the method, the route template and the body. Immutable and threadsafe.
 *
 * <p>A body that is valid JSON is hashed in canonical form: object members sorted by the code
 * points of their (unescaped) names, no insignificant whitespace, strings re-escaped one way only
 * (so <code>"&#92;u0041"</code> equals {@code "A"}), and numbers kept as written except that the exponent
 * marker becomes {@code e}, a {@code +} exponent sign is dropped and leading zeros of the
 * exponent are removed ({@code 1E+05} equals {@code 1e5}, but {@code 1.0} differs from {@code 1}).
 * A body that is empty, not UTF-8, not JSON, nested deeper than {@value #MAX_JSON_DEPTH} levels,
 * or holds an object with a repeated member name is hashed as raw bytes under a different domain
 * tag, so it still compares exactly and can never equal a JSON fingerprint.
 *
 * @param hex 64 lowercase hex digits
 */
public record Fingerprint(String hex) {

    /** Deepest nesting of arrays and objects that is still canonicalised. */
    public static final int MAX_JSON_DEPTH = 256;

    private static final Pattern HEX = Pattern.compile("[0-9a-f]{64}");

    /**
     * A fingerprint from its stored form.
     *
     * @throws IllegalArgumentException unless {@code hex} is 64 lowercase hex digits
     */
    public Fingerprint {
        if (!HEX.matcher(hex).matches()) {
            throw new IllegalArgumentException("hex must be 64 lowercase hex digits: " + hex);
        }
    }

    /**
     * The fingerprint of a request. Never fails on any body.
     *
     * @param method the HTTP method, e.g. {@code POST}
     * @param routeTemplate the route template, e.g. {@code /v1/payments/{id}/capture}
     * @param body the request body exactly as received (not modified, not kept)
     */
    public static Fingerprint of(String method, String routeTemplate, byte[] body) {
        return new Fingerprint(Fingerprints.sha256Hex(method, routeTemplate, body));
    }
}
