package dev.retrysafe.client.internal;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * A parser of Structured Field Lists (RFC 9651 section 4.2.1) as far as rate-limit fields need:
 * each member's parameters, with integer, decimal, string, token, boolean and byte-sequence
 * values (byte sequences, dates and display strings are checked for shape and kept as text).
 * Like the RFC says, a field that does not parse is ignored as a whole. Stateless and threadsafe.
 */
public final class StructuredList {

    /** Longest field value parsed; rate-limit fields are short, a longer one is ignored. */
    static final int MAX_LENGTH = 4096;

    /**
     * One List member.
     *
     * @param value the bare item ({@link String} for strings and tokens, {@link Long},
     *     {@link BigDecimal}, {@link Boolean}), or {@code null} for an inner list
     * @param parameters its parameters by key, in order
     */
    public record Member(@Nullable Object value, Map<String, Object> parameters) {
        /** A parameter that is an sf-integer, or {@code null}. */
        public @Nullable Long integer(String key) {
            return parameters.get(key) instanceof Long l ? l : null;
        }
    }

    private final String s;
    private int pos;

    private StructuredList(String s) {
        this.s = s;
    }

    /** The members of {@code value}, or {@code null} when it is not a valid List. */
    public static @Nullable List<Member> parse(String value) {
        if (value.length() > MAX_LENGTH) {
            return null;
        }
        try {
            return new StructuredList(value).list();
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    private List<Member> list() {
        List<Member> members = new ArrayList<>();
        skip(' ');
        while (pos < s.length()) {
            members.add(peek() == '(' ? innerList() : item());
            skipOws();
            if (pos >= s.length()) {
                return members;
            }
            expect(',');
            skipOws();
            if (pos >= s.length()) {
                throw fail("trailing comma");
            }
        }
        return members;
    }

    private Member innerList() {
        expect('(');
        while (true) {
            skip(' ');
            if (pos < s.length() && peek() == ')') {
                pos++;
                return new Member(null, parameters());
            }
            item();
            if (pos >= s.length() || (peek() != ' ' && peek() != ')')) {
                throw fail("inner list");
            }
        }
    }

    private Member item() {
        Object value = bareItem();
        return new Member(value, parameters());
    }

    private Map<String, Object> parameters() {
        Map<String, Object> params = new LinkedHashMap<>();
        while (pos < s.length() && peek() == ';') {
            pos++;
            skip(' ');
            String key = key();
            Object value = Boolean.TRUE;
            if (pos < s.length() && peek() == '=') {
                pos++;
                value = bareItem();
            }
            params.put(key, value);
        }
        return params;
    }

    private String key() {
        int start = pos;
        if (pos >= s.length() || !(isLcAlpha(peek()) || peek() == '*')) {
            throw fail("key");
        }
        pos++;
        while (pos < s.length() && (isLcAlpha(peek()) || isDigit(peek()) || "_-.*".indexOf(peek()) >= 0)) {
            pos++;
        }
        return s.substring(start, pos);
    }

    private Object bareItem() {
        if (pos >= s.length()) {
            throw fail("bare item");
        }
        char c = peek();
        if (c == '-' || isDigit(c)) {
            return number();
        }
        if (c == '"') {
            return string();
        }
        if (c == '*' || isAlpha(c)) {
            return token();
        }
        if (c == '?') {
            pos++;
            char b = next();
            if (b != '0' && b != '1') {
                throw fail("boolean");
            }
            return b == '1';
        }
        if (c == ':') {
            pos++;
            int start = pos;
            while (pos < s.length() && peek() != ':') {
                char x = peek();
                if (!(isAlpha(x) || isDigit(x) || x == '+' || x == '/' || x == '=')) {
                    throw fail("byte sequence");
                }
                pos++;
            }
            expect(':');
            return s.substring(start, pos - 1);
        }
        if (c == '@') {
            pos++;
            Object n = number();
            if (!(n instanceof Long)) {
                throw fail("date");
            }
            return n;
        }
        if (c == '%') {
            pos++;
            return string();
        }
        throw fail("bare item");
    }

    private Object number() {
        int start = pos;
        if (peek() == '-') {
            pos++;
        }
        int digitsStart = pos;
        while (pos < s.length() && isDigit(peek())) {
            pos++;
        }
        int intDigits = pos - digitsStart;
        if (intDigits == 0) {
            throw fail("number");
        }
        if (pos < s.length() && peek() == '.') {
            if (intDigits > 12) {
                throw fail("decimal");
            }
            pos++;
            int fracStart = pos;
            while (pos < s.length() && isDigit(peek())) {
                pos++;
            }
            int frac = pos - fracStart;
            if (frac < 1 || frac > 3) {
                throw fail("decimal");
            }
            return new BigDecimal(s.substring(start, pos));
        }
        if (intDigits > 15) {
            throw fail("integer");
        }
        return Long.parseLong(s.substring(start, pos));
    }

    private String string() {
        expect('"');
        StringBuilder out = new StringBuilder();
        while (true) {
            char c = next();
            if (c == '"') {
                return out.toString();
            }
            if (c == '\\') {
                char e = next();
                if (e != '"' && e != '\\') {
                    throw fail("escape");
                }
                out.append(e);
            } else if (c < 0x20 || c > 0x7e) {
                throw fail("string character");
            } else {
                out.append(c);
            }
        }
    }

    private String token() {
        int start = pos;
        pos++;
        while (pos < s.length() && isTokenChar(peek())) {
            pos++;
        }
        return s.substring(start, pos);
    }

    private static boolean isTokenChar(char c) {
        // tchar, ":" and "/" (RFC 9651 section 3.3.4): visible ASCII but the delimiters
        return c > 0x20 && c < 0x7f && "\"(),;<=>?@[\\]{}".indexOf(c) < 0;
    }

    private void skip(char c) {
        while (pos < s.length() && peek() == c) {
            pos++;
        }
    }

    private void skipOws() {
        while (pos < s.length() && (peek() == ' ' || peek() == '\t')) {
            pos++;
        }
    }

    private void expect(char c) {
        if (pos >= s.length() || s.charAt(pos) != c) {
            throw fail("'" + c + "'");
        }
        pos++;
    }

    private char peek() {
        return s.charAt(pos);
    }

    private char next() {
        if (pos >= s.length()) {
            throw fail("more input");
        }
        return s.charAt(pos++);
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }

    private static boolean isLcAlpha(char c) {
        return c >= 'a' && c <= 'z';
    }

    private static boolean isAlpha(char c) {
        return isLcAlpha(c) || (c >= 'A' && c <= 'Z');
    }

    private IllegalArgumentException fail(String expected) {
        return new IllegalArgumentException("expected " + expected + " at " + pos);
    }
}
