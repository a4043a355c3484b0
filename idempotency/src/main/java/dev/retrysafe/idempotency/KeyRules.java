package dev.retrysafe.idempotency;

import org.jspecify.annotations.Nullable;

/** The key grammar, kept apart from the record so that the rules read in one place. */
final class KeyRules {

    private KeyRules() {}

    static KeyParse parse(String headerValue) {
        String trimmed = trimOptionalWhitespace(headerValue);
        if (trimmed.isEmpty()) {
            return new KeyParse.Invalid("the key is empty");
        }
        String unquoted;
        if (trimmed.charAt(0) == '"') {
            Unquoted result = unquote(trimmed);
            if (result.value() == null) {
                return new KeyParse.Invalid(result.reason());
            }
            unquoted = result.value();
        } else {
            unquoted = trimmed;
        }
        String problem = problemWith(unquoted);
        return problem == null
                ? new KeyParse.Valid(new IdempotencyKey(unquoted))
                : new KeyParse.Invalid("the key " + problem);
    }

    /** Why {@code value} is not a key, or {@code null} if it is one. */
    static @Nullable String problemWith(@Nullable String value) {
        if (value == null) {
            return "is missing";
        }
        if (value.isEmpty()) {
            return "is empty";
        }
        if (value.length() > IdempotencyKey.MAX_LENGTH) {
            return "is longer than " + IdempotencyKey.MAX_LENGTH + " characters (" + value.length() + ")";
        }
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (!isPrintableAscii(c)) {
                return String.format("has a character outside printable ASCII at index %d (U+%04X)", i, (int) c);
            }
        }
        return null;
    }

    /** An sf-string's content, or why it is not an sf-string. */
    private record Unquoted(@Nullable String value, String reason) {
        static Unquoted failed(String reason) {
            return new Unquoted(null, reason);
        }
    }

    private static Unquoted unquote(String quoted) {
        StringBuilder out = new StringBuilder(quoted.length());
        for (int i = 1; i < quoted.length(); i++) {
            char c = quoted.charAt(i);
            if (c == '\\') {
                if (i + 1 == quoted.length()) {
                    return Unquoted.failed("the quoted key ends inside an escape");
                }
                char escaped = quoted.charAt(++i);
                if (escaped != '"' && escaped != '\\') {
                    return Unquoted.failed(
                            String.format("the quoted key has an escape other than \\\" or \\\\ at index %d", i - 1));
                }
                out.append(escaped);
            } else if (c == '"') {
                if (i != quoted.length() - 1) {
                    return Unquoted.failed("the quoted key has characters after its closing quote");
                }
                return new Unquoted(out.toString(), "");
            } else if (!isPrintableAscii(c)) {
                return Unquoted.failed(String.format(
                        "the key has a character outside printable ASCII at index %d (U+%04X)", i, (int) c));
            } else {
                out.append(c);
            }
        }
        return Unquoted.failed("the quoted key has no closing quote");
    }

    private static boolean isPrintableAscii(char c) {
        return c >= 0x20 && c <= 0x7E;
    }

    private static String trimOptionalWhitespace(String value) {
        int start = 0;
        int end = value.length();
        while (start < end && isOws(value.charAt(start))) {
            start++;
        }
        while (end > start && isOws(value.charAt(end - 1))) {
            end--;
        }
        return value.substring(start, end);
    }

    private static boolean isOws(char c) {
        return c == ' ' || c == '\t';
    }
}
