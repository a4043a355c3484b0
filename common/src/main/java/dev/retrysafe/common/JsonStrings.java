package dev.retrysafe.common;

/**
 * The one way Retrysafe escapes a JSON string, and the code point order of member names. Shared
 * by the canonicaliser and by writers of small JSON documents (problem details, webhook events,
 * the SDK's request bodies). Stateless and threadsafe.
 *
 * <p>Two forms, one escaper: the canonical form ({@link #appendCanonical}) and the document form
 * ({@link #appendDocument}), which also escapes U+2028 and U+2029. Both are valid JSON for the
 * same string; they differ because JavaScript before ES2019 reads those two as line ends inside
 * a string literal, so a document a receiver may embed in a script escapes them, while the
 * canonical form may not change at all: fingerprints stored under it must still match.
 */
public final class JsonStrings {

    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private JsonStrings() {}

    /** {@code s} as a quoted JSON string, escaped as {@link #appendCanonical} does. */
    public static String quoted(String s) {
        StringBuilder out = new StringBuilder(s.length() + 2);
        appendCanonical(out, s);
        return out.toString();
    }

    /**
     * Appends {@code s} as a quoted JSON string: {@code "} and {@code \} escaped, control
     * characters as the short escapes or <code>&#92;u00xx</code>, unpaired surrogates as <code>&#92;uxxxx</code>
     * (so the result always encodes to UTF-8 losslessly), everything else literally.
     */
    public static void appendCanonical(StringBuilder out, String s) {
        append(out, s, false);
    }

    /** {@code s} as a quoted JSON string, escaped as {@link #appendDocument} does. */
    public static String document(String s) {
        StringBuilder out = new StringBuilder(s.length() + 2);
        appendDocument(out, s);
        return out.toString();
    }

    /**
     * Appends {@code s} as a quoted JSON string for a document Retrysafe writes out: as
     * {@link #appendCanonical}, and the line and paragraph separators U+2028 and U+2029 as
     * <code>&#92;u2028</code> and <code>&#92;u2029</code>.
     */
    public static void appendDocument(StringBuilder out, String s) {
        append(out, s, true);
    }

    private static void append(StringBuilder out, String s, boolean escapeSeparators) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\b' -> out.append("\\b");
                case '\f' -> out.append("\\f");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20 || escapeSeparators && (c == '\u2028' || c == '\u2029')) {
                        appendUnicodeEscape(out, c);
                    } else if (Character.isHighSurrogate(c)
                            && i + 1 < s.length()
                            && Character.isLowSurrogate(s.charAt(i + 1))) {
                        out.append(c).append(s.charAt(++i));
                    } else if (Character.isSurrogate(c)) {
                        appendUnicodeEscape(out, c);
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        out.append('"');
    }

    /** Compares by Unicode code point (not UTF-16 unit), as canonical JSON orders member names. */
    public static int compareCodePoints(String a, String b) {
        int i = 0;
        int j = 0;
        while (i < a.length() && j < b.length()) {
            int ca = a.codePointAt(i);
            int cb = b.codePointAt(j);
            if (ca != cb) {
                return Integer.compare(ca, cb);
            }
            i += Character.charCount(ca);
            j += Character.charCount(cb);
        }
        return Boolean.compare(i < a.length(), j < b.length());
    }

    private static void appendUnicodeEscape(StringBuilder out, char c) {
        out.append("\\u")
                .append(HEX[(c >> 12) & 0xF])
                .append(HEX[(c >> 8) & 0xF])
                .append(HEX[(c >> 4) & 0xF])
                .append(HEX[c & 0xF]);
    }
}
