package dev.retrysafe.sdk;

import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The custom headers a webhook endpoint sends on every attempt (an API key its receiver checks,
 * say), with their values, as {@link NewWebhookEndpoint} and {@link WebhookEndpointUpdate} send
 * them. The values are credentials: {@link #toString()} and every message of this class show the
 * names only, and the API never shows a value again (an endpoint read back has
 * {@link WebhookEndpoint#headerNames()}). Immutable and threadsafe.
 *
 * <p>Checked here: names are HTTP tokens, distinct whatever their case; values have no control
 * character but tab, so none can write a header of its own. The server checks the rest (how many,
 * how long, which names it sets itself) and answers {@code 400} naming the header.
 */
public final class WebhookHeaders {

    private static final WebhookHeaders NONE = new WebhookHeaders(Map.of());

    private final Map<String, String> values;

    private WebhookHeaders(Map<String, String> values) {
        this.values = values;
    }

    /** No custom headers: on a change, removes the endpoint's. */
    public static WebhookHeaders none() {
        return NONE;
    }

    /**
     * The headers {@code values} (name to value), in the map's order.
     *
     * @throws IllegalArgumentException naming the header (never quoting a value) when a name is not
     *     an HTTP token, two names differ only in case, or a value is empty or has a control character
     */
    public static WebhookHeaders of(Map<String, String> values) {
        Map<String, String> copy = new LinkedHashMap<>();
        Map<String, String> byLowerCase = new HashMap<>();
        for (Map.Entry<String, String> e : values.entrySet()) {
            String name = Objects.requireNonNull(e.getKey(), "header name");
            String value = Objects.requireNonNull(e.getValue(), () -> "the value of header " + name);
            int bad = firstNonToken(name);
            if (bad >= 0) {
                // only the part before the bad character is quoted: a name written as "X-Api-Key: <value>"
                // must not put the value in the message
                throw new IllegalArgumentException("header name must be an HTTP token (letters, digits and "
                        + "!#$%&'*+-.^_`|~): "
                        + (name.isEmpty()
                                ? "it is empty"
                                : "\"" + name.substring(0, bad) + "\" is followed by character "
                                        + String.format("U+%04X", (int) name.charAt(bad))));
            }
            String earlier = byLowerCase.putIfAbsent(name.toLowerCase(Locale.ROOT), name);
            if (earlier != null) {
                throw new IllegalArgumentException(
                        "header names must differ whatever their case: " + earlier + " and " + name);
            }
            if (value.isEmpty() || !isFieldValue(value)) {
                throw new IllegalArgumentException("the value of header " + name
                        + " must be non-empty text without line breaks or other control characters");
            }
            copy.put(name, value);
        }
        return copy.isEmpty() ? NONE : new WebhookHeaders(Collections.unmodifiableMap(copy));
    }

    /** The header names, in the order given. */
    public List<String> names() {
        return List.copyOf(values.keySet());
    }

    /** The value of header {@code name} as given (exact case), or {@code null} when there is none. */
    public @Nullable String value(String name) {
        return values.get(name);
    }

    /** Whether there are none. */
    public boolean isEmpty() {
        return values.isEmpty();
    }

    @Override
    public boolean equals(@Nullable Object o) {
        // the order matters to no one: the server sorts the names
        return o instanceof WebhookHeaders other && values.equals(other.values);
    }

    @Override
    public int hashCode() {
        return values.hashCode();
    }

    /** The names only: {@code WebhookHeaders[X-Api-Key=(hidden)]}. */
    @Override
    public String toString() {
        StringBuilder s = new StringBuilder("WebhookHeaders[");
        boolean first = true;
        for (String name : values.keySet()) {
            s.append(first ? "" : ", ").append(name).append("=(hidden)");
            first = false;
        }
        return s.append(']').toString();
    }

    /** Where {@code s} stops being an RFC 9110 {@code token} (1 or more tchar): 0 when empty, -1 when it is one. */
    private static int firstNonToken(String s) {
        if (s.isEmpty()) {
            return 0;
        }
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            boolean alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
            if (!alnum && "!#$%&'*+-.^_`|~".indexOf(c) < 0) {
                return i;
            }
        }
        return -1;
    }

    /** No control character but tab (a CR or LF would start a header of its own). */
    private static boolean isFieldValue(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if ((c < 0x20 && c != '\t') || c == 0x7f) {
                return false;
            }
        }
        return true;
    }
}
