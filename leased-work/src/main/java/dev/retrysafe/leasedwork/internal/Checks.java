package dev.retrysafe.leasedwork.internal;

import java.time.Duration;
import java.util.Objects;

/** Argument checks whose messages name the parameter and the bad value. Stateless and threadsafe. */
public final class Checks {

    private static final int SLUG_MAX = 64;
    private static final int SHOWN_CHARS = 40;

    private Checks() {}

    /** {@code value} if it is 1 to 64 characters of {@code [a-z0-9_.-]}. */
    public static String slug(String name, String value) {
        Objects.requireNonNull(value, name);
        if (!isSlug(value)) {
            throw new IllegalArgumentException(
                    name + " must be 1 to " + SLUG_MAX + " characters of [a-z0-9_.-], was '" + abbreviate(value) + "'");
        }
        return value;
    }

    /** Whether {@code value} is 1 to 64 characters of {@code [a-z0-9_.-]}. */
    public static boolean isSlug(String value) {
        if (value.isEmpty() || value.length() > SLUG_MAX) {
            return false;
        }
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            boolean ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-';
            if (!ok) {
                return false;
            }
        }
        return true;
    }

    /** {@code value} if its length is within {@code [min, max]} characters. */
    public static String text(String name, String value, int min, int max) {
        Objects.requireNonNull(value, name);
        if (value.length() < min || value.length() > max) {
            throw new IllegalArgumentException(name + " must be " + min + " to " + max + " characters, was "
                    + value.length() + " ('" + abbreviate(value) + "')");
        }
        return value;
    }

    /** {@code value} if it takes at most {@code maxBytes} bytes in UTF-8. */
    public static String utf8(String name, String value, int maxBytes) {
        Objects.requireNonNull(value, name);
        long bytes = utf8Length(value);
        if (bytes > maxBytes) {
            throw new IllegalArgumentException(name + " must be at most " + maxBytes + " bytes in UTF-8, was " + bytes);
        }
        return value;
    }

    /** The length of {@code s} in UTF-8 without encoding it (an unpaired surrogate counts as '?'). */
    public static long utf8Length(String s) {
        long bytes = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                bytes += 1;
            } else if (c < 0x800) {
                bytes += 2;
            } else if (Character.isHighSurrogate(c)
                    && i + 1 < s.length()
                    && Character.isLowSurrogate(s.charAt(i + 1))) {
                bytes += 4;
                i++;
            } else if (Character.isSurrogate(c)) {
                bytes += 1;
            } else {
                bytes += 3;
            }
        }
        return bytes;
    }

    /** {@code value} if it is a plausible media type: 1 to 255 characters without control characters. */
    public static String contentType(String value) {
        text("contentType", value, 1, 255);
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c < 0x20 || c == 0x7f) {
                throw new IllegalArgumentException(
                        "contentType must not hold control characters, was '" + abbreviate(value) + "'");
            }
        }
        if (value.isBlank()) {
            throw new IllegalArgumentException("contentType must not be blank");
        }
        return value;
    }

    /** {@code value} if within {@code [min, max]}. */
    public static Duration range(String name, Duration value, Duration min, Duration max) {
        Objects.requireNonNull(value, name);
        if (value.compareTo(min) < 0 || value.compareTo(max) > 0) {
            throw new IllegalArgumentException(name + " must be " + min + " to " + max + ", was " + value);
        }
        return value;
    }

    /** {@code value} if within {@code [min, max]}. */
    public static int range(String name, int value, int min, int max) {
        if (value < min || value > max) {
            throw new IllegalArgumentException(name + " must be " + min + " to " + max + ", was " + value);
        }
        return value;
    }

    /** The first 40 characters of {@code value}, for messages. */
    public static String abbreviate(String value) {
        return abbreviate(value, SHOWN_CHARS);
    }

    /** The first {@code chars} characters of {@code value}, for messages. */
    public static String abbreviate(String value, int chars) {
        return value.length() <= chars ? value : value.substring(0, chars) + "...";
    }
}
