package dev.retrysafe.server.http;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * An RFC 9457 problem: its type, a detail for this occurrence, extension members and response
 * headers. Immutable.
 *
 * @param type what kind of problem (gives type URI, title and status)
 * @param detail what happened this time
 * @param extensions extra members such as {@code errors} or {@code retryable}
 * @param headers response headers to send with it, e.g. {@code Allow}
 */
public record Problem(ProblemType type, String detail, Map<String, Object> extensions, Map<String, String> headers) {

    /** Copies the maps (keeping their order). */
    public Problem {
        extensions = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(extensions));
        headers = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(headers));
    }

    /** What an id may look like to be shown back in a problem: letters, digits, {@code _} and {@code -}. */
    private static final java.util.regex.Pattern SHOWABLE_ID = java.util.regex.Pattern.compile("[A-Za-z0-9_-]{1,64}");

    /**
     * A {@code 404} for the {@code noun} that {@code id} names. The id is repeated in the detail
     * only when it is well-formed for {@code idPrefix}: whatever else a client put in the URL (a
     * secret pasted by mistake, markup) is not echoed back.
     */
    public static Problem notFound(String noun, String idPrefix, String id) {
        boolean showable = id.startsWith(idPrefix) && SHOWABLE_ID.matcher(id).matches();
        return of(
                ProblemType.NOT_FOUND,
                showable
                        ? "No " + noun + " '" + id + "' in this account."
                        : "No " + noun + " with that id in this account.");
    }

    /** A problem with no extensions or headers. */
    public static Problem of(ProblemType type, String detail) {
        return new Problem(type, detail, Map.of(), Map.of());
    }

    /** A validation problem listing each invalid field. */
    public static Problem invalid(List<FieldError> errors) {
        String detail = errors.size() == 1
                ? errors.get(0).field() + ": " + errors.get(0).detail()
                : errors.size() + " fields are invalid";
        return new Problem(ProblemType.VALIDATION_FAILED, detail, Map.of("errors", List.copyOf(errors)), Map.of());
    }

    /** A copy with one more extension member. */
    public Problem with(String member, Object value) {
        Map<String, Object> more = new LinkedHashMap<>(extensions);
        more.put(member, value);
        return new Problem(type, detail, more, headers);
    }

    /** A copy with one more response header. */
    public Problem withHeader(String name, String value) {
        Map<String, String> more = new LinkedHashMap<>(headers);
        more.put(name, value);
        return new Problem(type, detail, extensions, more);
    }

    /** The members every problem carries, in this order, before its extensions. */
    public static final List<String> MEMBERS = List.of("type", "title", "status", "detail", "retryable");

    /**
     * The body as an ordered map: type, title, status, detail, retryable (the type's, unless an
     * extension of this occurrence says otherwise), then the other extensions; the same members,
     * in the same order, as the servlet filters' problems.
     */
    public Map<String, Object> body() {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("type", type.uri());
        body.put("title", type.title());
        body.put("status", type.status());
        body.put("detail", detail);
        body.put("retryable", extensions.getOrDefault("retryable", type.retryable()));
        body.putAll(extensions);
        return body;
    }
}
