package dev.retrysafe.delivery.internal;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * The headers an endpoint's owner has every attempt carry (an API key the receiver checks, say):
 * their rules and their stored form. They are kept like secrets: read back only by the dispatcher,
 * shown only by name, never logged, and no message of this class quotes a value.
 *
 * <p>Stored form ({@code webhook_endpoints.custom_headers}): one {@code name: value} line per
 * header, lines joined by {@code \n}, in the order given; {@code NULL} for none. Names are HTTP
 * tokens and values hold no control character, so the form needs no escaping. Stateless.
 */
public final class CustomHeaders {

    /** Most headers on one endpoint. */
    public static final int MAX_COUNT = 20;
    /** Longest name. */
    public static final int MAX_NAME_LENGTH = 128;
    /** Longest value. */
    public static final int MAX_VALUE_LENGTH = 512;

    /**
     * Names the dispatcher sets itself: the signature (Standard Webhooks), the trace context, the
     * body's framing and the connection's. Any {@code proxy-*} name is refused too.
     */
    private static final Set<String> RESERVED = Set.of(
            "webhook-id",
            "webhook-signature",
            "webhook-timestamp",
            "traceparent",
            "tracestate",
            "content-type",
            "content-length",
            "content-encoding",
            "transfer-encoding",
            "host",
            "connection",
            "keep-alive",
            "upgrade",
            "te",
            "trailer",
            "expect",
            "user-agent");

    private CustomHeaders() {}

    /**
     * {@code headers} as a checked, unmodifiable copy in the given order.
     *
     * @throws IllegalArgumentException naming the header (never its value) when there are more
     *     than {@value #MAX_COUNT}, a name is not an HTTP token (RFC 9110 section 5.6.2) of at most
     *     {@value #MAX_NAME_LENGTH} characters, is reserved or given twice (names are
     *     case-insensitive), or a value is empty, longer than {@value #MAX_VALUE_LENGTH}
     *     characters, holds anything but visible ASCII, spaces and tabs, or starts or ends with
     *     white space
     */
    public static Map<String, String> check(String parameter, Map<String, String> headers) {
        Objects.requireNonNull(headers, parameter);
        String problem = problem(headers);
        if (problem != null) {
            throw new IllegalArgumentException(parameter + ": " + problem);
        }
        return Collections.unmodifiableMap(new LinkedHashMap<>(headers));
    }

    /**
     * What is wrong with {@code headers} (the first rule broken, naming the header but never
     * quoting a value), null when nothing is; see {@link #check}.
     */
    public static @Nullable String problem(Map<String, String> headers) {
        if (headers.size() > MAX_COUNT) {
            return "at most " + MAX_COUNT + " headers, had " + headers.size();
        }
        Set<String> seen = new TreeSet<>();
        for (Map.Entry<String, String> e : headers.entrySet()) {
            String name = Objects.requireNonNull(e.getKey(), "header name");
            String value = Objects.requireNonNull(e.getValue(), () -> "value of header " + name);
            String problem = problem(name, value);
            if (problem != null) {
                return problem;
            }
            if (!seen.add(name.toLowerCase(Locale.ROOT))) {
                return "header " + name + " is given twice (names are case-insensitive)";
            }
        }
        return null;
    }

    /**
     * What is wrong with one header, naming it but never quoting its value; null when nothing is.
     */
    public static @Nullable String problem(String name, String value) {
        if (name.isEmpty() || name.length() > MAX_NAME_LENGTH || !name.chars().allMatch(CustomHeaders::isTokenChar)) {
            return "\"" + DeliveryChecks.abbreviate(name) + "\" is not a header name (an HTTP token of 1 to "
                    + MAX_NAME_LENGTH + " letters, digits and !#$%&'*+-.^_`|~)";
        }
        String lower = name.toLowerCase(Locale.ROOT);
        if (RESERVED.contains(lower) || lower.startsWith("proxy-")) {
            return "header " + name + " is set by the dispatcher itself and cannot be given (reserved: "
                    + "webhook-id, webhook-signature, webhook-timestamp, traceparent, tracestate, user-agent and "
                    + "the framing headers content-*, host, connection, transfer-encoding, ...; proxy-*)";
        }
        if (value.isEmpty()
                || value.length() > MAX_VALUE_LENGTH
                || !value.chars().allMatch(c -> c == '\t' || (c >= 0x20 && c < 0x7f))
                || Character.isWhitespace(value.charAt(0))
                || Character.isWhitespace(value.charAt(value.length() - 1))) {
            return "the value of header " + name + " must be 1 to " + MAX_VALUE_LENGTH
                    + " characters of visible ASCII, spaces and tabs, not starting or ending with white space";
        }
        return null;
    }

    /** The stored form of {@code headers} (already checked); null for none. */
    public static @Nullable String encode(Map<String, String> headers) {
        if (headers.isEmpty()) {
            return null;
        }
        StringBuilder b = new StringBuilder();
        headers.forEach((name, value) -> {
            if (!b.isEmpty()) {
                b.append('\n');
            }
            b.append(name).append(": ").append(value);
        });
        return b.toString();
    }

    /** The headers of a stored form (null: none), in their order. */
    public static Map<String, String> decode(@Nullable String stored) {
        if (stored == null || stored.isEmpty()) {
            return Map.of();
        }
        Map<String, String> out = new LinkedHashMap<>();
        for (String line : stored.split("\n", -1)) {
            int colon = line.indexOf(": ");
            if (colon > 0) {
                out.put(line.substring(0, colon), line.substring(colon + 2));
            }
        }
        return Collections.unmodifiableMap(out);
    }

    /** The names of a stored form (null: none), sorted case-insensitively. */
    public static Set<String> names(@Nullable String stored) {
        Set<String> names = new TreeSet<>(String.CASE_INSENSITIVE_ORDER);
        names.addAll(decode(stored).keySet());
        return Collections.unmodifiableSet(names);
    }

    private static boolean isTokenChar(int c) {
        return (c >= 'a' && c <= 'z')
                || (c >= 'A' && c <= 'Z')
                || (c >= '0' && c <= '9')
                || "!#$%&'*+-.^_`|~".indexOf(c) >= 0;
    }
}
