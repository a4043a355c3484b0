package dev.retrysafe.server.http;

import java.util.OptionalInt;
import org.jspecify.annotations.Nullable;

/** Integer query parameters with a range, read alike by every route that takes one. */
public final class QueryInts {

    private QueryInts() {}

    /**
     * The value of {@code raw} when it is a decimal integer from {@code min} to {@code max},
     * {@code absent} when there is no parameter, empty otherwise (answer {@link #outOfRange}).
     */
    public static OptionalInt inRange(@Nullable String raw, int absent, int min, int max) {
        if (raw == null) {
            return OptionalInt.of(absent);
        }
        int n;
        try {
            n = Integer.parseInt(raw);
        } catch (NumberFormatException e) {
            return OptionalInt.empty();
        }
        return n < min || n > max ? OptionalInt.empty() : OptionalInt.of(n);
    }

    /** The field error for parameter {@code name} that {@link #inRange} refused. */
    public static FieldError outOfRange(String name, int min, int max) {
        return new FieldError(name, "must be an integer between " + min + " and " + max);
    }
}
