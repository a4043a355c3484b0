package dev.retrysafe.client.internal;

import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.TextStyle;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Reads {@code Retry-After} (RFC 9110 section 10.2.3): delay-seconds ({@code 1*DIGIT}) or an
 * HTTP-date in any of the three forms a recipient must accept (IMF-fixdate, RFC 850, asctime).
 * What is not one of them (negative, fractional, words) is ignored. Huge values saturate instead
 * of overflowing. Stateless and threadsafe.
 *
 * <p>Retrysafe's one reader of the header: the typed SDK and the webhook dispatcher (which bounds
 * what it reads by its own cap) use it through the qualified export of this package.
 */
public final class RetryAfterHeader {

    /** The header's name. */
    public static final String NAME = "Retry-After";
    /** What a delay too large for a {@code long} of seconds is read as. */
    static final Duration SATURATED = Duration.ofSeconds(Long.MAX_VALUE);

    private static final int MAX_DIGITS = 18;
    private static final Map<String, Integer> MONTHS = Map.ofEntries(
            Map.entry("Jan", 1),
            Map.entry("Feb", 2),
            Map.entry("Mar", 3),
            Map.entry("Apr", 4),
            Map.entry("May", 5),
            Map.entry("Jun", 6),
            Map.entry("Jul", 7),
            Map.entry("Aug", 8),
            Map.entry("Sep", 9),
            Map.entry("Oct", 10),
            Map.entry("Nov", 11),
            Map.entry("Dec", 12));
    private static final String SHORT_DAY = "(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)";
    private static final String LONG_DAY = "(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)";
    private static final String MONTH = "(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)";
    private static final String TIME = "(\\d{2}):(\\d{2}):(\\d{2})";
    /**
     * {@code Sun, 06 Nov 1994 08:49:37 GMT}; also with a one-digit day, as RFC 1123 allows and
     * many servers (Java's {@code RFC_1123_DATE_TIME} among them) send it.
     */
    private static final Pattern IMF_FIXDATE =
            Pattern.compile(SHORT_DAY + ", (\\d{1,2}) " + MONTH + " (\\d{4}) " + TIME + " GMT");
    /** {@code Sunday, 06-Nov-94 08:49:37 GMT}. */
    private static final Pattern RFC_850 =
            Pattern.compile(LONG_DAY + ", (\\d{2})-" + MONTH + "-(\\d{2}) " + TIME + " GMT");
    /** {@code Sun Nov  6 08:49:37 1994}. */
    private static final Pattern ASCTIME =
            Pattern.compile(SHORT_DAY + " " + MONTH + " ([ \\d]\\d) " + TIME + " (\\d{4})");

    private RetryAfterHeader() {}

    /**
     * The delay the values ask for, measured from {@code now}: the longest readable one;
     * {@code null} when there is none or none can be read. A date now or in the past is
     * {@link Duration#ZERO}.
     */
    public static @Nullable Duration delay(List<String> values, Instant now) {
        Duration longest = null;
        for (String value : values) {
            Duration d = delay(value, now);
            if (d != null && (longest == null || d.compareTo(longest) > 0)) {
                longest = d;
            }
        }
        return longest;
    }

    /** One value's delay from {@code now}, or {@code null} when it is neither form. */
    public static @Nullable Duration delay(String raw, Instant now) {
        String value = raw.strip();
        if (value.isEmpty()) {
            return null;
        }
        if (allDigits(value)) {
            String digits = stripLeadingZeros(value);
            return digits.length() > MAX_DIGITS ? SATURATED : Duration.ofSeconds(Long.parseLong(digits));
        }
        Instant date = httpDate(value, now);
        if (date == null) {
            return null;
        }
        return date.isAfter(now) ? Duration.between(now, date) : Duration.ZERO;
    }

    /** The instant of an HTTP-date in any of its three forms, or {@code null}. */
    static @Nullable Instant httpDate(String value, Instant now) {
        try {
            Matcher m = IMF_FIXDATE.matcher(value);
            if (m.matches()) {
                Instant date = instant(Integer.parseInt(m.group(3)), m.group(2), m.group(1), m, 4);
                // the form senders generate from a clock: a day name that contradicts its date is
                // a broken value, not an old sender's to read leniently as the obsolete forms are
                return value.startsWith(dayName(date)) ? date : null;
            }
            // the obsolete forms' day names are not checked: the date is what an old sender meant
            m = RFC_850.matcher(value);
            if (m.matches()) {
                return instant(fullYear(Integer.parseInt(m.group(3)), now), m.group(2), m.group(1), m, 4);
            }
            m = ASCTIME.matcher(value);
            if (m.matches()) {
                return instant(
                        Integer.parseInt(m.group(6)), m.group(1), m.group(2).strip(), m, 3);
            }
        } catch (DateTimeException e) {
            return null; // 31 Feb, 25:00 and the like
        }
        return null;
    }

    private static String dayName(Instant date) {
        return date.atZone(ZoneOffset.UTC).getDayOfWeek().getDisplayName(TextStyle.SHORT, Locale.US);
    }

    private static Instant instant(int year, String month, String day, Matcher m, int timeGroup) {
        return LocalDateTime.of(
                        year,
                        MONTHS.get(month),
                        Integer.parseInt(day),
                        Integer.parseInt(m.group(timeGroup)),
                        Integer.parseInt(m.group(timeGroup + 1)),
                        Integer.parseInt(m.group(timeGroup + 2)))
                .toInstant(ZoneOffset.UTC);
    }

    /**
     * RFC 9110 section 5.6.7: a two-digit year that would be more than 50 years in the future is
     * the most recent past year with those digits.
     */
    static int fullYear(int twoDigits, Instant now) {
        int thisYear = now.atZone(ZoneOffset.UTC).getYear();
        int year = thisYear - Math.floorMod(thisYear, 100) + twoDigits;
        if (year > thisYear + 50) {
            year -= 100;
        } else if (year < thisYear - 49) {
            year += 100;
        }
        return year;
    }

    private static boolean allDigits(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') {
                return false;
            }
        }
        return true;
    }

    private static String stripLeadingZeros(String digits) {
        int i = 0;
        while (i < digits.length() - 1 && digits.charAt(i) == '0') {
            i++;
        }
        return digits.substring(i);
    }
}
