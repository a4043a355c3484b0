package dev.retrysafe.server.http;

import java.util.HashSet;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Says in words where a JSON text breaks and what was expected there, for the
 * {@code malformed-json} problem: a client reads "at line 3, column 15: expected a value (...),
 * found 'eur'" rather than a parser's message with its class names and internal settings. The
 * parser still decides whether a body is valid; this scanner only explains a body the parser
 * refused, by walking RFC 8259's grammar (plus the server's rules: no duplicate member names, no
 * trailing data) to the first place the text leaves it. Stateless and threadsafe.
 */
public final class JsonSyntax {

    /** Deepest nesting explained; deeper bodies are refused by the parser's own limit first. */
    static final int MAX_DEPTH = 1000;

    private static final String A_VALUE = "a value (a string, number, object, array, true, false or null)";
    private static final int MAX_SHOWN = 40;

    private final String text;
    private int at;
    private int depth;

    private JsonSyntax(String text) {
        this.text = text;
    }

    /**
     * Where {@code text} first breaks JSON, as {@code "at line 1, column 8: expected ..., found
     * ..."}, or {@code null} if the scanner finds no fault (the parser refused it for a limit).
     */
    public static @Nullable String explain(String text) {
        JsonSyntax scan = new JsonSyntax(text);
        try {
            scan.whitespace();
            scan.value();
            scan.whitespace();
            if (scan.at < text.length()) {
                throw scan.fault("expected the end of the body after the JSON value", scan.at);
            }
            return null;
        } catch (Fault f) {
            return f.getMessage();
        }
    }

    private void value() {
        if (at >= text.length()) {
            throw fault("expected " + A_VALUE, at);
        }
        char c = text.charAt(at);
        switch (c) {
            case '{' -> object();
            case '[' -> array();
            case '"' -> string();
            default -> {
                if (c == '-' || isDigit(c)) {
                    number();
                } else {
                    literal();
                }
            }
        }
    }

    private void object() {
        enter();
        at++; // '{'
        whitespace();
        Set<String> names = new HashSet<>();
        if (peek() == '}') {
            at++;
            depth--;
            return;
        }
        while (true) {
            if (peek() != '"') {
                throw fault("expected a member name in double quotes", at);
            }
            int nameAt = at;
            String name = string();
            if (!names.add(name)) {
                throw fault("the member name \"" + shorten(name) + "\" appears twice in one object", nameAt);
            }
            whitespace();
            if (peek() != ':') {
                throw fault("expected ':' after the member name", at);
            }
            at++;
            whitespace();
            value();
            whitespace();
            int c = peek();
            at++;
            if (c == '}') {
                depth--;
                return;
            }
            if (c != ',') {
                throw fault("expected ',' or '}' after the member's value", at - 1);
            }
            whitespace();
        }
    }

    private void array() {
        enter();
        at++; // '['
        whitespace();
        if (peek() == ']') {
            at++;
            depth--;
            return;
        }
        while (true) {
            value();
            whitespace();
            int c = peek();
            at++;
            if (c == ']') {
                depth--;
                return;
            }
            if (c != ',') {
                throw fault("expected ',' or ']' after the array element", at - 1);
            }
            whitespace();
        }
    }

    private String string() {
        StringBuilder out = new StringBuilder();
        at++; // '"'
        while (true) {
            if (at >= text.length()) {
                throw fault("expected '\"' to close the string", at);
            }
            char c = text.charAt(at);
            if (c == '"') {
                at++;
                return out.toString();
            }
            if (c < 0x20) {
                throw fault("expected a character of the string (a control character must be escaped, as \\n)", at);
            }
            if (c == '\\') {
                escape(out);
            } else {
                out.append(c);
                at++;
            }
        }
    }

    private void escape(StringBuilder out) {
        int start = at;
        at++; // '\'
        int c = peek();
        if (c == 'u') {
            for (int i = 1; i <= 4; i++) {
                if (at + i >= text.length() || Character.digit(text.charAt(at + i), 16) < 0) {
                    throw fault("expected four hexadecimal digits after \\u", Math.min(at + i, text.length()));
                }
            }
            out.append((char) Integer.parseInt(text.substring(at + 1, at + 5), 16));
            at += 5;
            return;
        }
        if (c < 0 || "\"\\/bfnrt".indexOf(c) < 0) {
            throw fault("expected an escape such as \\\" \\\\ \\n or \\u00e9 after the backslash", start + 1);
        }
        out.append((char) c);
        at++;
    }

    private void number() {
        if (peek() == '-') {
            at++;
        }
        if (peek() == '0') {
            at++;
            if (isDigit(peek())) {
                throw fault("expected no digit after a leading 0 (numbers have no leading zeros)", at);
            }
        } else {
            digits("expected a digit");
        }
        if (peek() == '.') {
            at++;
            digits("expected a digit after the decimal point");
        }
        if (peek() == 'e' || peek() == 'E') {
            at++;
            if (peek() == '+' || peek() == '-') {
                at++;
            }
            digits("expected a digit in the exponent");
        }
    }

    private void digits(String expected) {
        if (!isDigit(peek())) {
            throw fault(expected, at);
        }
        while (isDigit(peek())) {
            at++;
        }
    }

    private void literal() {
        int start = at;
        while (at < text.length() && Character.isLetterOrDigit(text.charAt(at))) {
            at++;
        }
        String word = text.substring(start, at);
        if (!(word.equals("true") || word.equals("false") || word.equals("null"))) {
            throw fault("expected " + A_VALUE, start);
        }
    }

    private void enter() {
        if (++depth > MAX_DEPTH) {
            throw fault("expected at most " + MAX_DEPTH + " nested objects and arrays", at);
        }
    }

    private void whitespace() {
        while (at < text.length()) {
            char c = text.charAt(at);
            if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
                return;
            }
            at++;
        }
    }

    /** The character at the cursor, or -1 at the end. */
    private int peek() {
        return at < text.length() ? text.charAt(at) : -1;
    }

    private static boolean isDigit(int c) {
        return c >= '0' && c <= '9';
    }

    /** A fault at {@code index}: its line and column (from 1), what was expected, what was found. */
    private Fault fault(String expected, int index) {
        int line = 1;
        int lineStart = 0;
        for (int i = 0; i < index && i < text.length(); i++) {
            if (text.charAt(i) == '\n') {
                line++;
                lineStart = i + 1;
            }
        }
        String found = expected.startsWith("the member name") ? "" : ", found " + found(index);
        return new Fault("at line " + line + ", column " + (index - lineStart + 1) + ": " + expected + found);
    }

    /** What is at {@code index}, in words: a word, one character, or the end of the body. */
    private String found(int index) {
        if (index >= text.length()) {
            return "the end of the body";
        }
        int c = text.codePointAt(index);
        if (Character.isLetterOrDigit(c)) {
            int end = index;
            while (end < text.length() && Character.isLetterOrDigit(text.charAt(end))) {
                end++;
            }
            return "'" + shorten(text.substring(index, end)) + "'";
        }
        if (c == '\n' || c == '\r') {
            return "the end of the line";
        }
        if (Character.isISOControl(c) || Character.isWhitespace(c) && c != ' ') {
            return String.format("the control character U+%04X", c);
        }
        return "'" + new String(Character.toChars(c)) + "'";
    }

    private static String shorten(String s) {
        return s.length() <= MAX_SHOWN ? s : s.substring(0, MAX_SHOWN) + "...";
    }

    /** Ends the scan at the first fault; no stack trace, it is a value. */
    private static final class Fault extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Fault(String message) {
            super(message, null, false, false);
        }
    }
}
