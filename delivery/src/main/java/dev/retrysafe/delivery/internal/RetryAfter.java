package dev.retrysafe.delivery.internal;

import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * Reads a {@code Retry-After} value (RFC 9110 section 10.2.3): delta-seconds, or an HTTP-date in
 * any of the three formats a recipient must accept (section 5.6.7). Stateless and threadsafe.
 */
public final class RetryAfter {

    /**
     * The longest wait reported. Larger values are clamped so that adding the wait to a time
     * cannot overflow; the dispatcher applies its own, much smaller bounds.
     */
    public static final Duration MAX = Duration.ofDays(365);

    private static final DateTimeFormatter RFC_850 =
            DateTimeFormatter.ofPattern("dd-MMM-yy HH:mm:ss 'GMT'", Locale.US);
    private static final DateTimeFormatter ASCTIME =
            DateTimeFormatter.ofPattern("MMM ppd HH:mm:ss yyyy", Locale.US);

    private RetryAfter() {
    }

    /**
     * The wait {@code value} asks for, seen at {@code now}; zero for a date in the past,
     * {@code null} when the value is neither form.
     */
    public static @Nullable Duration parse(@Nullable String value, Instant now) {
        if (value == null) {
            return null;
        }
        String text = value.strip();
        if (text.isEmpty()) {
            return null;
        }
        if (text.chars().allMatch(c -> c >= '0' && c <= '9')) {
            // more digits than fit in a long are still a valid (absurd) delta: clamp them
            if (text.length() > 12) {
                return MAX;
            }
            return clamp(Duration.ofSeconds(Long.parseLong(text)));
        }
        Instant date = httpDate(text, now);
        if (date == null) {
            return null;
        }
        Duration wait = Duration.between(now, date);
        return wait.isNegative() ? Duration.ZERO : clamp(wait);
    }

    private static @Nullable Instant httpDate(String text, Instant now) {
        try {
            // IMF-fixdate, "Sun, 06 Nov 1994 08:49:37 GMT"
            return ZonedDateTime.parse(text, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
        } catch (DateTimeParseException ignored) {
            // try the obsolete forms
        }
        try {
            // RFC 850, "Sunday, 06-Nov-94 08:49:37 GMT": a two-digit year more than 50 years
            // in the future means the past century (RFC 9110 section 5.6.7)
            // the day name is dropped before parsing: with a two-digit year it cannot be checked
            // until the century is known, and a wrong one does not change the date meant
            LocalDateTime parsed = LocalDateTime.parse(afterDayName(text, ", "), RFC_850);
            Instant instant = parsed.toInstant(ZoneOffset.UTC);
            if (instant.isAfter(now.atOffset(ZoneOffset.UTC).plusYears(50).toInstant())) {
                instant = parsed.minusYears(100).toInstant(ZoneOffset.UTC);
            }
            return instant;
        } catch (DateTimeException ignored) {
            // try asctime
        }
        try {
            // asctime, "Sun Nov  6 08:49:37 1994"
            return LocalDateTime.parse(afterDayName(text, " "), ASCTIME).toInstant(ZoneOffset.UTC);
        } catch (DateTimeException ignored) {
            return null;
        }
    }

    /** The text after a leading day name and {@code separator}; the text itself when there is none. */
    private static String afterDayName(String text, String separator) {
        int end = text.indexOf(separator);
        if (end < 3 || !text.substring(0, end).chars().allMatch(Character::isLetter)) {
            return text;
        }
        return text.substring(end + separator.length());
    }

    private static Duration clamp(Duration wait) {
        return wait.compareTo(MAX) > 0 ? MAX : wait;
    }
}
