package dev.retrysafe.testkit;

import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A strict parser of HTTP Structured Field values (RFC 9651, which extends RFC 8941 with Dates
 * and Display Strings): Lists, Dictionaries and Items with Parameters, so that tests check
 * headers by their structure instead of by string matching. Follows the parsing algorithms of
 * RFC 9651 section 4.2; any deviation is a {@link IllegalArgumentException} naming the position.
 * Bare item values are {@link String} (sf-string), {@link Token}, {@link Long} (sf-integer),
 * {@link BigDecimal} (sf-decimal), {@link Boolean}, {@link ByteSequence}, {@link Date} and
 * {@link DisplayString}. Stateless and threadsafe.
 */
public final class StructuredFields {

    private StructuredFields() {}

    /** A List member or Dictionary value: an {@link Item} or an {@link InnerList}. */
    public sealed interface Member permits Item, InnerList {
        /** The member's parameters, in order. */
        Map<String, Object> parameters();
    }

    /**
     * An Item: a bare value and its parameters.
     *
     * @param value      the bare item
     * @param parameters keys to bare items, in order ({@code true} for a key without a value)
     */
    public record Item(Object value, Map<String, Object> parameters) implements Member {
        public Item {
            Objects.requireNonNull(value, "value");
            parameters = Collections.unmodifiableMap(new LinkedHashMap<>(parameters));
        }

        /** The parameter {@code key}, or {@code null} when absent. */
        public @Nullable Object parameter(String key) {
            return parameters.get(key);
        }
    }

    /**
     * An Inner List: items in parentheses, and the list's own parameters.
     *
     * @param items      the items
     * @param parameters the inner list's parameters
     */
    public record InnerList(List<Item> items, Map<String, Object> parameters) implements Member {
        public InnerList {
            items = List.copyOf(items);
            parameters = Collections.unmodifiableMap(new LinkedHashMap<>(parameters));
        }
    }

    /** An sf-token, kept apart from sf-strings. */
    public record Token(String value) {}

    /** An sf-binary value, compared by content. */
    public record ByteSequence(byte[] bytes) {
        public ByteSequence {
            bytes = bytes.clone();
        }

        @Override
        public byte[] bytes() {
            return bytes.clone();
        }

        @Override
        public boolean equals(Object other) {
            return other instanceof ByteSequence b && Arrays.equals(bytes, b.bytes);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(bytes);
        }

        @Override
        public String toString() {
            return ":" + Base64.getEncoder().encodeToString(bytes) + ":";
        }
    }

    /** An sf-date (RFC 9651): seconds since the epoch. */
    public record Date(long epochSeconds) {}

    /** An sf-displaystring (RFC 9651): Unicode text. */
    public record DisplayString(String value) {}

    /** Parses a List field value (an empty value is an empty list). */
    public static List<Member> parseList(String value) {
        Parser p = new Parser(value);
        p.skipSpaces();
        List<Member> members = new ArrayList<>();
        while (!p.atEnd()) {
            members.add(p.member());
            p.skipOws();
            if (p.atEnd()) {
                break;
            }
            p.expect(',');
            p.skipOws();
            if (p.atEnd()) {
                throw p.error("trailing comma");
            }
        }
        return List.copyOf(members);
    }

    /** Parses a Dictionary field value, in order; a repeated key keeps its last value. */
    public static Map<String, Member> parseDictionary(String value) {
        Parser p = new Parser(value);
        p.skipSpaces();
        Map<String, Member> members = new LinkedHashMap<>();
        while (!p.atEnd()) {
            String key = p.key();
            Member member;
            if (p.peek() == '=') {
                p.pos++;
                member = p.member();
            } else {
                member = new Item(Boolean.TRUE, p.parameters());
            }
            members.remove(key);
            members.put(key, member);
            p.skipOws();
            if (p.atEnd()) {
                break;
            }
            p.expect(',');
            p.skipOws();
            if (p.atEnd()) {
                throw p.error("trailing comma");
            }
        }
        return Collections.unmodifiableMap(members);
    }

    /** Parses an Item field value. */
    public static Item parseItem(String value) {
        Parser p = new Parser(value);
        p.skipSpaces();
        Item item = p.item();
        p.skipSpaces();
        if (!p.atEnd()) {
            throw p.error("unexpected input after the item");
        }
        return item;
    }

    /** A cursor over one field value. */
    private static final class Parser {
        private final String in;
        private int pos;

        Parser(String in) {
            this.in = in;
        }

        boolean atEnd() {
            return pos >= in.length();
        }

        int peek() {
            return atEnd() ? -1 : in.charAt(pos);
        }

        IllegalArgumentException error(String what) {
            return new IllegalArgumentException(what + " at position " + pos + " of: " + in);
        }

        void expect(char c) {
            if (peek() != c) {
                throw error("expected '" + c + "'");
            }
            pos++;
        }

        void skipSpaces() {
            while (peek() == ' ') {
                pos++;
            }
        }

        void skipOws() {
            while (peek() == ' ' || peek() == '\t') {
                pos++;
            }
        }

        Member member() {
            return peek() == '(' ? innerList() : item();
        }

        InnerList innerList() {
            expect('(');
            List<Item> items = new ArrayList<>();
            while (true) {
                skipSpaces();
                if (peek() == ')') {
                    pos++;
                    return new InnerList(items, parameters());
                }
                items.add(item());
                int next = peek();
                if (next != ' ' && next != ')') {
                    throw error("expected a space or ')' in an inner list");
                }
            }
        }

        Item item() {
            Object value = bareItem();
            return new Item(value, parameters());
        }

        Map<String, Object> parameters() {
            Map<String, Object> parameters = new LinkedHashMap<>();
            while (peek() == ';') {
                pos++;
                skipSpaces();
                String key = key();
                Object value = Boolean.TRUE;
                if (peek() == '=') {
                    pos++;
                    value = bareItem();
                }
                parameters.remove(key);
                parameters.put(key, value);
            }
            return parameters;
        }

        String key() {
            int c = peek();
            if (!(isLcAlpha(c) || c == '*')) {
                throw error("a key must start with a lowercase letter or '*'");
            }
            int start = pos;
            while (isLcAlpha(peek()) || isDigit(peek()) || "_-.*".indexOf(peek()) >= 0 && peek() != -1) {
                pos++;
            }
            return in.substring(start, pos);
        }

        Object bareItem() {
            int c = peek();
            if (c == '-' || isDigit(c)) {
                return number();
            }
            if (c == '"') {
                return string();
            }
            if (c == '*' || isAlpha(c)) {
                return token();
            }
            if (c == ':') {
                return byteSequence();
            }
            if (c == '?') {
                return bool();
            }
            if (c == '@') {
                pos++;
                Object date = number();
                if (!(date instanceof Long seconds)) {
                    throw error("a date must be an integer");
                }
                return new Date(seconds);
            }
            if (c == '%') {
                return displayString();
            }
            throw error("not the start of a bare item");
        }

        Object number() {
            int start = pos;
            boolean negative = false;
            if (peek() == '-') {
                negative = true;
                pos++;
            }
            if (!isDigit(peek())) {
                throw error("expected a digit");
            }
            int digitsStart = pos;
            int dot = -1;
            while (isDigit(peek()) || (peek() == '.' && dot < 0)) {
                if (peek() == '.') {
                    if (pos - digitsStart > 12) {
                        throw error("a decimal has at most 12 integer digits");
                    }
                    dot = pos;
                }
                pos++;
                if (dot < 0 && pos - digitsStart > 15) {
                    throw error("an integer has at most 15 digits");
                }
                if (dot >= 0 && pos - digitsStart > 16) {
                    throw error("a decimal has at most 16 characters");
                }
            }
            String text = in.substring(start, pos);
            if (dot < 0) {
                long value = Long.parseLong(text.substring(negative ? 1 : 0));
                return negative ? -value : value;
            }
            int fraction = pos - dot - 1;
            if (fraction < 1 || fraction > 3) {
                throw error("a decimal has 1 to 3 fractional digits");
            }
            return new BigDecimal(text);
        }

        String string() {
            expect('"');
            StringBuilder out = new StringBuilder();
            while (true) {
                if (atEnd()) {
                    throw error("unterminated string");
                }
                char c = in.charAt(pos++);
                if (c == '\\') {
                    int next = peek();
                    if (next != '"' && next != '\\') {
                        throw error("only '\"' and '\\' may be escaped");
                    }
                    out.append((char) next);
                    pos++;
                } else if (c == '"') {
                    return out.toString();
                } else if (c < 0x20 || c > 0x7e) {
                    throw error("strings hold printable ASCII only");
                } else {
                    out.append(c);
                }
            }
        }

        Token token() {
            int start = pos;
            pos++;
            while (isTchar(peek()) || peek() == ':' || peek() == '/') {
                pos++;
            }
            return new Token(in.substring(start, pos));
        }

        ByteSequence byteSequence() {
            expect(':');
            int start = pos;
            while (peek() != ':') {
                int c = peek();
                if (c == -1 || !(isAlpha(c) || isDigit(c) || c == '+' || c == '/' || c == '=')) {
                    throw error("a byte sequence holds base64 between colons");
                }
                pos++;
            }
            String base64 = in.substring(start, pos);
            pos++;
            try {
                return new ByteSequence(Base64.getDecoder().decode(base64));
            } catch (IllegalArgumentException e) {
                throw error("bad base64 in a byte sequence");
            }
        }

        Boolean bool() {
            expect('?');
            int c = peek();
            if (c == '1' || c == '0') {
                pos++;
                return c == '1';
            }
            throw error("a boolean is ?0 or ?1");
        }

        DisplayString displayString() {
            expect('%');
            expect('"');
            ByteBuffer bytes = ByteBuffer.allocate(in.length());
            while (true) {
                if (atEnd()) {
                    throw error("unterminated display string");
                }
                char c = in.charAt(pos++);
                if (c < 0x20 || c > 0x7e) {
                    throw error("display strings hold printable ASCII only");
                }
                if (c == '%') {
                    if (pos + 2 > in.length()) {
                        throw error("a percent escape needs two hex digits");
                    }
                    String hex = in.substring(pos, pos + 2);
                    if (!hex.matches("[0-9a-f]{2}")) {
                        throw error("a percent escape needs two lowercase hex digits");
                    }
                    bytes.put((byte) Integer.parseInt(hex, 16));
                    pos += 2;
                } else if (c == '"') {
                    bytes.flip();
                    try {
                        return new DisplayString(StandardCharsets.UTF_8
                                .newDecoder()
                                .onMalformedInput(CodingErrorAction.REPORT)
                                .decode(bytes)
                                .toString());
                    } catch (CharacterCodingException e) {
                        throw error("a display string must be UTF-8");
                    }
                } else {
                    bytes.put((byte) c);
                }
            }
        }

        private static boolean isDigit(int c) {
            return c >= '0' && c <= '9';
        }

        private static boolean isLcAlpha(int c) {
            return c >= 'a' && c <= 'z';
        }

        private static boolean isAlpha(int c) {
            return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
        }

        private static boolean isTchar(int c) {
            return isAlpha(c) || isDigit(c) || (c != -1 && "!#$%&'*+-.^_`|~".indexOf(c) >= 0);
        }
    }
}
