package dev.retrysafe.idempotency;

/**
 * An idempotency key as the client chose it, already unquoted: 1 to {@value #MAX_LENGTH}
 * printable ASCII characters ({@code 0x20..0x7E}). Immutable and threadsafe.
 *
 * <p>{@link #parse(String)} reads the value of an {@code Idempotency-Key} header, which is either
 * an RFC 8941 sf-string ({@code "..."}, where only {@code \"} and {@code \\} escapes exist) or,
 * as many clients send it, the bare value.
 *
 * @param value the unquoted key
 */
public record IdempotencyKey(String value) {

    /** The longest key accepted, in characters. */
    public static final int MAX_LENGTH = 255;

    /**
     * A key from an already unquoted value.
     *
     * @throws IllegalArgumentException if {@code value} breaks the key rules
     */
    public IdempotencyKey {
        String problem = KeyRules.problemWith(value);
        if (problem != null) {
            throw new IllegalArgumentException("value " + problem);
        }
    }

    /**
     * Parses an {@code Idempotency-Key} header value. Leading and trailing spaces and tabs are
     * ignored, as HTTP trims them. Never throws.
     */
    public static KeyParse parse(String headerValue) {
        return KeyRules.parse(headerValue);
    }
}
