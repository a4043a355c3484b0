package dev.retrysafe.delivery.internal;

import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/** Checks the caller's headers before they go on the wire. Stateless. */
public final class Headers {

    /** Headers the sender owns: letting a caller set them would break framing or the contract. */
    private static final Set<String> RESERVED = Set.of(
            "host",
            "content-type",
            "content-length",
            "transfer-encoding",
            "connection",
            "user-agent",
            "te",
            "trailer",
            "upgrade",
            "expect",
            "keep-alive",
            "proxy-connection");

    private Headers() {}

    /**
     * @throws IllegalArgumentException naming the header (never its value, which may be a
     *     signature) when a name is not an HTTP token (RFC 9110 section 5.6.2), a value holds a
     *     control character other than tab, or the header is reserved
     */
    public static void validate(Map<String, String> headers) {
        Objects.requireNonNull(headers, "headers");
        headers.forEach((name, value) -> {
            Objects.requireNonNull(name, "header name");
            Objects.requireNonNull(value, () -> "value of header " + name);
            if (name.isEmpty() || !name.chars().allMatch(Headers::isTokenChar)) {
                throw new IllegalArgumentException("not a valid header name: \"" + name + "\"");
            }
            if (RESERVED.contains(name.toLowerCase(Locale.ROOT))) {
                throw new IllegalArgumentException("the sender sets " + name + " itself");
            }
            if (!value.chars().allMatch(c -> c == '\t' || (c >= 0x20 && c != 0x7f && c <= 0xff))) {
                // CR or LF in a value would let it write headers of its own
                throw new IllegalArgumentException("the value of " + name + " holds a control character");
            }
        });
    }

    private static boolean isTokenChar(int c) {
        return (c >= 'a' && c <= 'z')
                || (c >= 'A' && c <= 'Z')
                || (c >= '0' && c <= '9')
                || "!#$%&'*+-.^_`|~".indexOf(c) >= 0;
    }
}
