package dev.retrysafe.idempotency.internal;

import dev.retrysafe.common.JsonStrings;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * Turns a JSON text (RFC 8259, UTF-8) into its one canonical form, or says it cannot. A
 * recursive-descent parser whose recursion is bounded by {@link #MAX_DEPTH}, so no input can
 * exhaust the stack, and which reports failure as {@code null}, so no input makes it throw.
 * One instance parses one text; the static entry point is threadsafe.
 */
public final class CanonicalJson {

    /** Deepest nesting of arrays and objects accepted; deeper texts are not canonicalised. */
    public static final int MAX_DEPTH = 256;

    private final String text;
    private int pos;

    private CanonicalJson(String text) {
        this.text = text;
    }

    /**
     * The canonical UTF-8 form of {@code json}, or {@code null} when it is empty, not UTF-8,
     * not a single JSON value, too deep, or has an object with a repeated member name.
     */
    public static byte @Nullable [] canonicalize(byte[] json) {
        String text = decodeStrictUtf8(json);
        if (text == null) {
            return null;
        }
        CanonicalJson parser = new CanonicalJson(text);
        StringBuilder out = new StringBuilder(text.length());
        parser.skipWhitespace();
        if (!parser.value(out, 0)) {
            return null;
        }
        parser.skipWhitespace();
        if (parser.pos != text.length()) {
            return null;
        }
        // lone surrogates were escaped on the way out, so this encoding is lossless
        return out.toString().getBytes(StandardCharsets.UTF_8);
    }

    private static @Nullable String decodeStrictUtf8(byte[] bytes) {
        try {
            return StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes))
                    .toString();
        } catch (CharacterCodingException notUtf8) {
            return null;
        }
    }

    private boolean value(StringBuilder out, int depth) {
        if (pos >= text.length()) {
            return false;
        }
        char c = text.charAt(pos);
        return switch (c) {
            case '{' -> depth < MAX_DEPTH && object(out, depth + 1);
            case '[' -> depth < MAX_DEPTH && array(out, depth + 1);
            case '"' -> {
                String s = string();
                if (s == null) {
                    yield false;
                }
                JsonStrings.appendCanonical(out, s);
                yield true;
            }
            case 't' -> literal(out, "true");
            case 'f' -> literal(out, "false");
            case 'n' -> literal(out, "null");
            default -> (c == '-' || isDigit(c)) && number(out);
        };
    }

    private boolean object(StringBuilder out, int depth) {
        pos++; // '{'
        Map<String, String> members = new TreeMap<>(JsonStrings::compareCodePoints);
        skipWhitespace();
        if (peek() == '}') {
            pos++;
            out.append("{}");
            return true;
        }
        while (true) {
            skipWhitespace();
            if (peek() != '"') {
                return false;
            }
            String name = string();
            if (name == null || members.containsKey(name)) {
                return false;
            }
            skipWhitespace();
            if (peek() != ':') {
                return false;
            }
            pos++;
            skipWhitespace();
            StringBuilder member = new StringBuilder();
            if (!value(member, depth)) {
                return false;
            }
            members.put(name, member.toString());
            skipWhitespace();
            char next = peek();
            pos++;
            if (next == '}') {
                break;
            }
            if (next != ',') {
                return false;
            }
        }
        out.append('{');
        boolean first = true;
        for (Map.Entry<String, String> member : members.entrySet()) {
            if (!first) {
                out.append(',');
            }
            first = false;
            JsonStrings.appendCanonical(out, member.getKey());
            out.append(':').append(member.getValue());
        }
        out.append('}');
        return true;
    }

    private boolean array(StringBuilder out, int depth) {
        pos++; // '['
        out.append('[');
        skipWhitespace();
        if (peek() == ']') {
            pos++;
            out.append(']');
            return true;
        }
        while (true) {
            skipWhitespace();
            if (!value(out, depth)) {
                return false;
            }
            skipWhitespace();
            char next = peek();
            pos++;
            if (next == ']') {
                out.append(']');
                return true;
            }
            if (next != ',') {
                return false;
            }
            out.append(',');
        }
    }

    /** The unescaped content of the string starting at {@code pos}, or {@code null} if malformed. */
    private @Nullable String string() {
        pos++; // opening quote
        StringBuilder s = new StringBuilder();
        while (pos < text.length()) {
            char c = text.charAt(pos++);
            if (c == '"') {
                return s.toString();
            }
            if (c < 0x20) {
                return null;
            }
            if (c != '\\') {
                s.append(c);
                continue;
            }
            if (pos >= text.length()) {
                return null;
            }
            char e = text.charAt(pos++);
            switch (e) {
                case '"', '\\', '/' -> s.append(e);
                case 'b' -> s.append('\b');
                case 'f' -> s.append('\f');
                case 'n' -> s.append('\n');
                case 'r' -> s.append('\r');
                case 't' -> s.append('\t');
                case 'u' -> {
                    int unit = hex4();
                    if (unit < 0) {
                        return null;
                    }
                    s.append((char) unit);
                }
                default -> {
                    return null;
                }
            }
        }
        return null;
    }

    private int hex4() {
        if (pos + 4 > text.length()) {
            return -1;
        }
        int unit = 0;
        for (int i = 0; i < 4; i++) {
            int digit = Character.digit(text.charAt(pos + i), 16);
            // Character.digit also accepts non-ASCII digits, which JSON does not
            if (digit < 0 || text.charAt(pos + i) > 'f') {
                return -1;
            }
            unit = unit * 16 + digit;
        }
        pos += 4;
        return unit;
    }

    /**
     * Copies a number token, normalising only its exponent: {@code E} becomes {@code e}, a
     * {@code +} sign and leading zeros go, so the value's lexical identity is otherwise kept.
     */
    private boolean number(StringBuilder out) {
        int start = pos;
        if (peek() == '-') {
            pos++;
        }
        if (peek() == '0') {
            pos++;
        } else if (isDigit(peek())) {
            skipDigits();
        } else {
            return false;
        }
        if (peek() == '.') {
            pos++;
            if (!isDigit(peek())) {
                return false;
            }
            skipDigits();
        }
        out.append(text, start, pos);
        char e = peek();
        if (e != 'e' && e != 'E') {
            return true;
        }
        pos++;
        boolean negative = false;
        if (peek() == '+' || peek() == '-') {
            negative = peek() == '-';
            pos++;
        }
        if (!isDigit(peek())) {
            return false;
        }
        int digitsStart = pos;
        skipDigits();
        int significant = digitsStart;
        while (significant < pos - 1 && text.charAt(significant) == '0') {
            significant++;
        }
        boolean zero = significant == pos - 1 && text.charAt(significant) == '0';
        out.append('e');
        if (negative && !zero) {
            out.append('-');
        }
        out.append(text, significant, pos);
        return true;
    }

    private boolean literal(StringBuilder out, String word) {
        if (!text.startsWith(word, pos)) {
            return false;
        }
        pos += word.length();
        out.append(word);
        return true;
    }

    private void skipDigits() {
        while (isDigit(peek())) {
            pos++;
        }
    }

    private void skipWhitespace() {
        while (pos < text.length()) {
            char c = text.charAt(pos);
            if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
                return;
            }
            pos++;
        }
    }

    /** The current character, or NUL at the end (NUL never starts or continues any token). */
    private char peek() {
        return pos < text.length() ? text.charAt(pos) : '\0';
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }
}
