package dev.retrysafe.servlet.internal;

import dev.retrysafe.idempotency.Scope;
import java.util.List;

/**
 * A configured route: a method and a path template whose {@code {name}} segments match any one
 * non-empty segment. Immutable and threadsafe.
 *
 * @param segments the template split at {@code /}; a {@code null}-free list where a segment
 *     starting with {@code {} is a parameter
 */
public record RouteTemplate(String method, String template, List<String> segments, boolean keyRequired) {

    /** Checks and copies. */
    public RouteTemplate {
        segments = List.copyOf(segments);
    }

    /**
     * A route from its parts.
     *
     * @throws IllegalArgumentException if the method is not a token or the template is malformed
     */
    public static RouteTemplate of(String method, String template, boolean keyRequired) {
        if (method.isEmpty() || !method.chars().allMatch(RouteTemplate::isTokenChar)) {
            throw new IllegalArgumentException("method must be an HTTP token: \"" + method + "\"");
        }
        if (!template.startsWith("/") || template.chars().anyMatch(c -> c <= 0x20 || c >= 0x7F)) {
            throw new IllegalArgumentException(
                    "template must be a path starting with / without spaces: \"" + template + "\"");
        }
        if (method.length() + 1 + template.length() > Scope.MAX_ROUTE_LENGTH) {
            throw new IllegalArgumentException("method and template must fit " + Scope.MAX_ROUTE_LENGTH
                    + " characters: " + method + " " + template);
        }
        List<String> segments = List.of(template.substring(1).split("/", -1));
        for (String segment : segments) {
            boolean opens = segment.indexOf('{') >= 0;
            boolean closes = segment.indexOf('}') >= 0;
            if ((opens || closes)
                    && !(segment.length() > 2
                            && segment.startsWith("{")
                            && segment.endsWith("}")
                            && segment.indexOf('{', 1) < 0
                            && segment.indexOf('}') == segment.length() - 1)) {
                throw new IllegalArgumentException(
                        "template parameters must be whole segments like {id}: \"" + template + "\"");
            }
        }
        return new RouteTemplate(method, template, segments, keyRequired);
    }

    /** Whether a request with {@code requestMethod} to {@code path} (no query) is this route. */
    public boolean matches(String requestMethod, String path) {
        if (!method.equals(requestMethod) || !path.startsWith("/")) {
            return false;
        }
        String[] parts = path.substring(1).split("/", -1);
        if (parts.length != segments.size()) {
            return false;
        }
        for (int i = 0; i < parts.length; i++) {
            String segment = segments.get(i);
            boolean parameter = segment.startsWith("{");
            if (parameter ? parts[i].isEmpty() : !segment.equals(parts[i])) {
                return false;
            }
        }
        return true;
    }

    /** Whether {@code c} may appear in an HTTP token (RFC 9110 tchar). */
    static boolean isTokenChar(int c) {
        return c >= '0' && c <= '9'
                || c >= 'a' && c <= 'z'
                || c >= 'A' && c <= 'Z'
                || "!#$%&'*+-.^_`|~".indexOf(c) >= 0;
    }
}
