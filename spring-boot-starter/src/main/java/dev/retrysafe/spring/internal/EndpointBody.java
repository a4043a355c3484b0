package dev.retrysafe.spring.internal;

import dev.retrysafe.delivery.EndpointHeaders;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Reads the fields of a webhook endpoint's JSON body (create or {@code PATCH}) as the Retrysafe
 * server reads them, keeping the first problem found: each reader answers {@code null} for an
 * absent or bad field, and {@link #problem()} then says what was wrong, naming the field (and a
 * custom header by name, never its value). Not threadsafe: one per request.
 */
final class EndpointBody {

    private final Map<String, @Nullable Object> body;
    private @Nullable String problem;

    /** Reads {@code body}, which may hold only {@code allowed} fields. */
    EndpointBody(Map<String, @Nullable Object> body, Set<String> allowed) {
        this.body = body;
        for (String field : body.keySet()) {
            if (!allowed.contains(field)) {
                reject("unknown field '" + field + "'");
                break;
            }
        }
    }

    /** The first problem found, or null. */
    @Nullable
    String problem() {
        return problem;
    }

    /** Whether the field is in the body, even as {@code null}. */
    boolean has(String field) {
        return body.containsKey(field);
    }

    /** A URL, or null if absent (a problem if {@code required}) or not a URL. */
    @Nullable
    URI url(String field, boolean required) {
        String text = string(field, required);
        if (text == null) {
            return null;
        }
        try {
            return new URI(text);
        } catch (URISyntaxException e) {
            reject(field + " is not a URL: " + e.getReason());
            return null;
        }
    }

    /** A string, or null if absent (a problem if {@code required}) or not a string. */
    @Nullable
    String string(String field, boolean required) {
        Object value = body.get(field);
        if (value instanceof String s) {
            return s;
        }
        if (value != null || required) {
            reject(field + (required ? " is required, a string" : " must be a string"));
        }
        return null;
    }

    /** A non-empty set of strings, or null if absent (a problem if {@code required}) or bad. */
    @Nullable
    Set<String> strings(String field, boolean required) {
        Object value = body.get(field);
        if (value == null && !required) {
            return null;
        }
        String rule = field
                + (required ? " is required, a non-empty array of strings" : " must be a non-empty array of strings");
        if (!(value instanceof List<?> items) || items.isEmpty()) {
            reject(rule);
            return null;
        }
        Set<String> set = new LinkedHashSet<>();
        for (Object item : items) {
            if (!(item instanceof String s)) {
                reject(field + " must hold strings");
                return null;
            }
            set.add(s);
        }
        return set;
    }

    /** A boolean, or null if absent, {@code null}, or not a boolean (a problem). */
    @Nullable
    Boolean bool(String field) {
        Object value = body.get(field);
        if (value == null || value instanceof Boolean) {
            return (Boolean) value;
        }
        reject(field + " must be true or false");
        return null;
    }

    /** An integer, or null if absent, {@code null} or not an integer (a problem). */
    @Nullable
    Integer integer(String field) {
        Object value = body.get(field);
        if (value == null || value instanceof Integer) {
            return (Integer) value;
        }
        reject(field + " must be an integer or null");
        return null;
    }

    /**
     * Custom headers, name to string value, checked by the delivery module's rules; {@code null}
     * in the body reads as none (an empty map); null if absent or bad.
     */
    @Nullable
    Map<String, String> headers(String field) {
        if (!body.containsKey(field)) {
            return null;
        }
        Object value = body.get(field);
        if (value == null) {
            return Map.of();
        }
        if (!(value instanceof Map<?, ?> map)) {
            reject(field + " must be an object of header names to string values");
            return null;
        }
        Map<String, String> headers = new LinkedHashMap<>();
        for (Map.Entry<?, ?> e : map.entrySet()) {
            if (!(e.getValue() instanceof String s)) {
                reject(field + ": the value of header " + e.getKey() + " must be a string");
                return null;
            }
            headers.put(String.valueOf(e.getKey()), s);
        }
        String broken = EndpointHeaders.problem(headers); // names the header, never quotes its value
        if (broken != null) {
            reject(field + ": " + broken);
            return null;
        }
        return headers;
    }

    private void reject(String why) {
        if (problem == null) {
            problem = why;
        }
    }
}
