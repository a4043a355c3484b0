package dev.retrysafe.server.config;

import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Parses and prints the durations of the configuration file: {@code 250ms}, {@code 30s}, {@code 5m}, {@code 24h}, {@code 2d}. */
public final class Durations {

    private static final Pattern FORM = Pattern.compile("(\\d{1,12})\\s*(ms|s|m|h|d)");

    private Durations() {}

    /** The duration {@code text} stands for; {@code setting} names it in the error. */
    public static Duration parse(String setting, String text) {
        Matcher m = FORM.matcher(text.trim().toLowerCase(Locale.ROOT));
        if (!m.matches()) {
            throw new ConfigException(
                    setting, setting + " must be a duration such as 100ms, 30s, 5m, 24h or 2d, was '" + text + "'");
        }
        long n = Long.parseLong(m.group(1));
        return switch (m.group(2)) {
            case "ms" -> Duration.ofMillis(n);
            case "s" -> Duration.ofSeconds(n);
            case "m" -> Duration.ofMinutes(n);
            case "h" -> Duration.ofHours(n);
            default -> Duration.ofDays(n);
        };
    }

    /** The shortest form of {@code d} that {@link #parse} reads back to the same value. */
    public static String format(Duration d) {
        long ms = d.toMillis();
        if (ms % 86_400_000 == 0 && ms != 0) {
            return ms / 86_400_000 + "d";
        } else if (ms % 3_600_000 == 0 && ms != 0) {
            return ms / 3_600_000 + "h";
        } else if (ms % 60_000 == 0 && ms != 0) {
            return ms / 60_000 + "m";
        } else if (ms % 1000 == 0 && ms != 0) {
            return ms / 1000 + "s";
        }
        return ms + "ms";
    }
}
