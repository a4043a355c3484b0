package dev.retrysafe.sdk.internal;

import dev.retrysafe.common.JsonStrings;
import dev.retrysafe.sdk.WebhookHeaders;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * A small JSON (RFC 8259) reader and writer for the typed client, so that it needs no library.
 * Objects are {@link Map}s in member order, arrays {@link List}s, numbers {@link Long} when they are
 * integers that fit and {@link BigDecimal} otherwise, plus {@link String}, {@link Boolean} and
 * {@code null}. Reading is strict (one value, no trailing text, no comments, nesting at most
 * {@value #MAX_DEPTH} deep) and fails with {@link IllegalArgumentException} naming the position.
 * Stateless and threadsafe.
 */
public final class Json {

    /** Deepest nesting read; the API's documents are a few levels deep. */
    static final int MAX_DEPTH = 64;

    private final String text;
    private int pos;

    private Json(String text) {
        this.text = text;
    }

    /** Reads one JSON value. */
    public static @Nullable Object parse(String text) {
        Json reader = new Json(text);
        reader.whitespace();
        Object value = reader.value(0);
        reader.whitespace();
        if (reader.pos != text.length()) {
            throw reader.fail("end of input");
        }
        return value;
    }

    /** Writes {@code value} (maps, iterables, strings, numbers, booleans, {@code null}) as compact JSON. */
    public static String write(@Nullable Object value) {
        StringBuilder out = new StringBuilder();
        write(value, out);
        return out.toString();
    }

    private @Nullable Object value(int depth) {
        if (depth > MAX_DEPTH) {
            throw fail("at most " + MAX_DEPTH + " levels of nesting");
        }
        if (pos >= text.length()) {
            throw fail("a value");
        }
        char c = text.charAt(pos);
        return switch (c) {
            case '{' -> object(depth);
            case '[' -> array(depth);
            case '"' -> string();
            case 't' -> literal("true", Boolean.TRUE);
            case 'f' -> literal("false", Boolean.FALSE);
            case 'n' -> literal("null", null);
            default -> {
                if (c == '-' || (c >= '0' && c <= '9')) {
                    yield number();
                }
                throw fail("a value");
            }
        };
    }

    private Map<String, @Nullable Object> object(int depth) {
        pos++;
        Map<String, @Nullable Object> members = new LinkedHashMap<>();
        whitespace();
        if (peek() == '}') {
            pos++;
            return Collections.unmodifiableMap(members);
        }
        while (true) {
            whitespace();
            if (peek() != '"') {
                throw fail("a member name");
            }
            String name = string();
            whitespace();
            expect(':');
            whitespace();
            if (members.containsKey(name)) {
                throw fail("no duplicate member '" + name + "'");
            }
            members.put(name, value(depth + 1));
            whitespace();
            char c = next();
            if (c == '}') {
                return Collections.unmodifiableMap(members);
            }
            if (c != ',') {
                pos--;
                throw fail("',' or '}'");
            }
        }
    }

    private List<@Nullable Object> array(int depth) {
        pos++;
        List<@Nullable Object> items = new ArrayList<>();
        whitespace();
        if (peek() == ']') {
            pos++;
            return Collections.unmodifiableList(items);
        }
        while (true) {
            whitespace();
            items.add(value(depth + 1));
            whitespace();
            char c = next();
            if (c == ']') {
                return Collections.unmodifiableList(items);
            }
            if (c != ',') {
                pos--;
                throw fail("',' or ']'");
            }
        }
    }

    private String string() {
        expect('"');
        StringBuilder out = new StringBuilder();
        while (true) {
            char c = next();
            if (c == '"') {
                return out.toString();
            }
            if (c < 0x20) {
                pos--;
                throw fail("no control character in a string");
            }
            if (c != '\\') {
                out.append(c);
                continue;
            }
            char e = next();
            switch (e) {
                case '"', '\\', '/' -> out.append(e);
                case 'b' -> out.append('\b');
                case 'f' -> out.append('\f');
                case 'n' -> out.append('\n');
                case 'r' -> out.append('\r');
                case 't' -> out.append('\t');
                case 'u' -> {
                    if (pos + 4 > text.length()) {
                        throw fail("four hex digits");
                    }
                    try {
                        out.append((char) Integer.parseInt(text.substring(pos, pos + 4), 16));
                    } catch (NumberFormatException ex) {
                        throw fail("four hex digits");
                    }
                    pos += 4;
                }
                default -> {
                    pos--;
                    throw fail("an escape");
                }
            }
        }
    }

    private Object number() {
        int start = pos;
        if (peek() == '-') {
            pos++;
        }
        if (pos < text.length() && text.charAt(pos) == '0') {
            pos++;
        } else if (!digits()) {
            throw fail("a digit");
        }
        boolean integer = true;
        if (pos < text.length() && text.charAt(pos) == '.') {
            pos++;
            integer = false;
            if (!digits()) {
                throw fail("a digit after '.'");
            }
        }
        if (pos < text.length() && (text.charAt(pos) == 'e' || text.charAt(pos) == 'E')) {
            pos++;
            integer = false;
            if (pos < text.length() && (text.charAt(pos) == '+' || text.charAt(pos) == '-')) {
                pos++;
            }
            if (!digits()) {
                throw fail("a digit in the exponent");
            }
        }
        String literal = text.substring(start, pos);
        if (integer && literal.length() <= 18) {
            return Long.parseLong(literal);
        }
        return new BigDecimal(literal);
    }

    private boolean digits() {
        int start = pos;
        while (pos < text.length() && text.charAt(pos) >= '0' && text.charAt(pos) <= '9') {
            pos++;
        }
        return pos > start;
    }

    private @Nullable Object literal(String word, @Nullable Object value) {
        if (!text.startsWith(word, pos)) {
            throw fail("'" + word + "'");
        }
        pos += word.length();
        return value;
    }

    private void whitespace() {
        while (pos < text.length()) {
            char c = text.charAt(pos);
            if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
                return;
            }
            pos++;
        }
    }

    private char peek() {
        if (pos >= text.length()) {
            throw fail("more input");
        }
        return text.charAt(pos);
    }

    private char next() {
        char c = peek();
        pos++;
        return c;
    }

    private void expect(char c) {
        if (next() != c) {
            pos--;
            throw fail("'" + c + "'");
        }
    }

    private IllegalArgumentException fail(String expected) {
        return new IllegalArgumentException("invalid JSON: expected " + expected + " at offset " + pos);
    }

    private static void write(@Nullable Object value, StringBuilder out) {
        switch (value) {
            case null -> out.append("null");
            case String s -> JsonStrings.appendDocument(out, s);
            case Boolean b -> out.append(b);
            case Long l -> out.append(l);
            case Integer i -> out.append(i);
            case BigDecimal d -> out.append(d.toString());
            case Number n -> {
                double d = n.doubleValue();
                if (Double.isNaN(d) || Double.isInfinite(d)) {
                    throw new IllegalArgumentException("JSON has no " + d);
                }
                out.append(n);
            }
            case Map<?, ?> map -> {
                out.append('{');
                boolean first = true;
                for (Map.Entry<?, ?> e : map.entrySet()) {
                    if (!first) {
                        out.append(',');
                    }
                    first = false;
                    JsonStrings.appendDocument(out, String.valueOf(e.getKey()));
                    out.append(':');
                    write(e.getValue(), out);
                }
                out.append('}');
            }
            case WebhookHeaders headers -> {
                // the one place a header's value is read: into the request body
                Map<String, @Nullable Object> values = new LinkedHashMap<>();
                for (String name : headers.names()) {
                    values.put(name, headers.value(name));
                }
                write(values, out);
            }
            case Iterable<?> items -> {
                out.append('[');
                boolean first = true;
                for (Object item : items) {
                    if (!first) {
                        out.append(',');
                    }
                    first = false;
                    write(item, out);
                }
                out.append(']');
            }
            default -> JsonStrings.appendDocument(out, value.toString());
        }
    }
}
