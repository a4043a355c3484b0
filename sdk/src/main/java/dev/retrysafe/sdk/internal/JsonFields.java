package dev.retrysafe.sdk.internal;

import java.io.IOException;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Typed reads of one JSON object of an answer; a missing or mistyped member is an
 * {@link IOException} naming it, since the API promised it. Not threadsafe (one answer).
 *
 * @param members the object's members
 * @param what what the object is, for messages ("payment")
 */
public record JsonFields(Map<String, @Nullable Object> members, String what) {

    /** The object {@code value}, or an {@link IOException} when it is none. */
    @SuppressWarnings("unchecked")
    public static JsonFields of(@Nullable Object value, String what) throws IOException {
        if (!(value instanceof Map<?, ?> map)) {
            throw new IOException("unexpected answer: the " + what + " is not a JSON object");
        }
        return new JsonFields((Map<String, @Nullable Object>) map, what);
    }

    /** Parses {@code body} as one JSON object. */
    public static JsonFields parse(String body, String what) throws IOException {
        try {
            return of(Json.parse(body), what);
        } catch (IllegalArgumentException e) {
            throw new IOException("unexpected answer: the " + what + " is not JSON (" + e.getMessage() + ")", e);
        }
    }

    /** A required string. */
    public String string(String name) throws IOException {
        if (members.get(name) instanceof String s) {
            return s;
        }
        throw missing(name, "a string");
    }

    /** An optional string. */
    public @Nullable String optString(String name) throws IOException {
        Object v = members.get(name);
        if (v == null || v instanceof String) {
            return (String) v;
        }
        throw missing(name, "a string or null");
    }

    /** A required integer. */
    public long integer(String name) throws IOException {
        if (members.get(name) instanceof Long l) {
            return l;
        }
        throw missing(name, "an integer");
    }

    /** An optional integer that fits an {@code int} (a fraction is rounded down). */
    public @Nullable Integer optInt(String name) throws IOException {
        Object v = members.get(name);
        if (v == null) {
            return null;
        }
        if (v instanceof Long l && l == l.intValue()) {
            return l.intValue();
        }
        if (v instanceof BigDecimal d && d.abs().compareTo(BigDecimal.valueOf(Integer.MAX_VALUE)) <= 0) {
            return d.intValue();
        }
        throw missing(name, "an integer or null");
    }

    /** An optional integer. */
    public @Nullable Long optLong(String name) throws IOException {
        Object v = members.get(name);
        if (v == null || v instanceof Long) {
            return (Long) v;
        }
        throw missing(name, "an integer or null");
    }

    /** A required number, integer or not. */
    public BigDecimal decimal(String name) throws IOException {
        return switch (members.get(name)) {
            case Long l -> BigDecimal.valueOf(l);
            case BigDecimal d -> d;
            case null, default -> throw missing(name, "a number");
        };
    }

    /** A required boolean. */
    public boolean bool(String name) throws IOException {
        if (members.get(name) instanceof Boolean b) {
            return b;
        }
        throw missing(name, "true or false");
    }

    /** A boolean that may be absent (false then), as members a server added later are. */
    public boolean optBool(String name) throws IOException {
        return switch (members.get(name)) {
            case null -> false;
            case Boolean b -> b;
            default -> throw missing(name, "true or false");
        };
    }

    /** A required RFC 3339 time. */
    public Instant instant(String name) throws IOException {
        Instant t = optInstant(name);
        if (t == null) {
            throw missing(name, "a time");
        }
        return t;
    }

    /** An optional RFC 3339 time. */
    public @Nullable Instant optInstant(String name) throws IOException {
        String s = optString(name);
        if (s == null) {
            return null;
        }
        try {
            return java.time.OffsetDateTime.parse(s).toInstant();
        } catch (DateTimeParseException e) {
            throw missing(name, "an RFC 3339 time");
        }
    }

    /** A required list of strings. */
    public List<String> strings(String name) throws IOException {
        if (!(members.get(name) instanceof List<?> list)) {
            throw missing(name, "a list");
        }
        List<String> out = new ArrayList<>();
        for (Object item : list) {
            if (!(item instanceof String s)) {
                throw missing(name, "a list of strings");
            }
            out.add(s);
        }
        return out;
    }

    /** A list of strings that may be absent (empty then), as members a server added later are. */
    public List<String> optStrings(String name) throws IOException {
        return members.get(name) == null ? List.of() : strings(name);
    }

    /** A required list of objects. */
    public List<JsonFields> objects(String name, String itemWhat) throws IOException {
        if (!(members.get(name) instanceof List<?> list)) {
            throw missing(name, "a list");
        }
        List<JsonFields> out = new ArrayList<>();
        for (Object item : list) {
            out.add(of(item, itemWhat));
        }
        return out;
    }

    /** A required object. */
    public JsonFields object(String name, String itemWhat) throws IOException {
        if (members.get(name) == null) {
            throw missing(name, "an object");
        }
        return of(members.get(name), itemWhat);
    }

    /** An optional object. */
    public @Nullable JsonFields optObject(String name, String itemWhat) throws IOException {
        Object v = members.get(name);
        return v == null ? null : of(v, itemWhat);
    }

    private IOException missing(String name, String expected) {
        return new IOException("unexpected answer: member '" + name + "' of the " + what + " is not " + expected);
    }
}
