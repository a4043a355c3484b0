package dev.retrysafe.idempotency;

/**
 * One response header kept with a stored answer, such as {@code Location}. Immutable and
 * threadsafe.
 *
 * @param name an RFC 9110 token, e.g. {@code Content-Type}
 * @param value the field value, without CR, LF or NUL (so a replay can never split a response)
 */
public record HeaderField(String name, String value) {

    /** Checks that the field is safe to write back into a response. */
    public HeaderField {
        if (name.isEmpty() || !name.chars().allMatch(HeaderField::isTokenChar)) {
            throw new IllegalArgumentException("name must be an HTTP token: \"" + name + "\"");
        }
        if (value.chars().anyMatch(c -> c == '\r' || c == '\n' || c == '\0')) {
            throw new IllegalArgumentException("value of " + name + " must not contain CR, LF or NUL: \""
                    + value.replace("\r", "\\r").replace("\n", "\\n").replace("\0", "\\0") + "\"");
        }
    }

    private static boolean isTokenChar(int c) {
        return c >= '0' && c <= '9'
                || c >= 'a' && c <= 'z'
                || c >= 'A' && c <= 'Z'
                || "!#$%&'*+-.^_`|~".indexOf(c) >= 0;
    }
}
