package dev.retrysafe.server.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Reads the members of a JSON request object, collecting one {@link FieldError} per bad member
 * instead of stopping at the first, so a client can fix everything in one go. Not threadsafe:
 * one instance per request.
 */
public final class BodyFields {

    /** The start of an RFC 3339 time: a year of exactly four digits. */
    private static final Pattern FOUR_DIGIT_YEAR = Pattern.compile("[0-9]{4}-");

    private final ObjectNode body;
    private final List<FieldError> errors = new ArrayList<>();

    /** Reads {@code body}; every member not in {@code known} is an error. */
    public BodyFields(ObjectNode body, Set<String> known) {
        this.body = body;
        for (Iterator<String> it = body.fieldNames(); it.hasNext(); ) {
            String name = it.next();
            if (!known.contains(name)) {
                errors.add(new FieldError(name, "is not a known field"));
            }
        }
    }

    /** An integer in {@code [min, max]}; {@code null} when absent and optional, or invalid. */
    public @Nullable Long integer(String name, boolean required, long min, long max) {
        JsonNode n = body.get(name);
        if (n == null || n.isNull()) {
            if (required) {
                errors.add(new FieldError(name, "is required"));
            }
            return null;
        }
        if (!n.isIntegralNumber()) {
            errors.add(new FieldError(name, "must be an integer (minor units, e.g. cents)"));
            return null;
        }
        if (!n.canConvertToLong() || n.longValue() < min || n.longValue() > max) {
            errors.add(new FieldError(name, "must be between " + min + " and " + max));
            return null;
        }
        return n.longValue();
    }

    /** A string of at most {@code maxLength} characters; {@code null} when absent and optional, or invalid. */
    public @Nullable String string(String name, boolean required, int maxLength) {
        JsonNode n = body.get(name);
        if (n == null || n.isNull()) {
            if (required) {
                errors.add(new FieldError(name, "is required"));
            }
            return null;
        }
        if (!n.isTextual()) {
            errors.add(new FieldError(name, "must be a string"));
            return null;
        }
        if (n.textValue().length() > maxLength) {
            errors.add(new FieldError(name, "must be at most " + maxLength + " characters long"));
            return null;
        }
        if (!storable(n.textValue())) {
            errors.add(new FieldError(
                    name,
                    "must not contain control characters (other than tab and"
                            + " line breaks) or unpaired surrogates"));
            return null;
        }
        return n.textValue();
    }

    /** Whether member {@code name} is present and not {@code null}. */
    public boolean has(String name) {
        JsonNode n = body.get(name);
        return n != null && !n.isNull();
    }

    /** Member {@code name} as sent, or {@code null} when absent: for members of other shapes. */
    public @Nullable JsonNode member(String name) {
        JsonNode n = body.get(name);
        return n == null || n.isNull() ? null : n;
    }

    /** A boolean; {@code null} when absent, or invalid. */
    public @Nullable Boolean bool(String name) {
        JsonNode n = member(name);
        if (n == null) {
            return null;
        }
        if (!n.isBoolean()) {
            errors.add(new FieldError(name, "must be true or false"));
            return null;
        }
        return n.booleanValue();
    }

    /**
     * An RFC 3339 time such as {@code 2026-01-31T12:00:00Z}; {@code null} when absent and optional,
     * or invalid. The year has four digits, as RFC 3339 says: Java also reads years such as
     * {@code +10000} or {@code -999999999}, which the databases cannot store.
     */
    public @Nullable Instant time(String name, boolean required) {
        String t = string(name, required, 64);
        if (t == null) {
            return null;
        }
        try {
            if (!FOUR_DIGIT_YEAR.matcher(t).lookingAt()) {
                throw new DateTimeParseException("the year must have four digits", t, 0);
            }
            return OffsetDateTime.parse(t).toInstant();
        } catch (DateTimeParseException e) {
            errors.add(new FieldError(name, "must be an RFC 3339 time such as 2026-01-31T12:00:00Z"));
            return null;
        }
    }

    /** Records an error of member {@code name}. */
    public void reject(String name, String detail) {
        errors.add(new FieldError(name, detail));
    }

    /** Every error found so far. */
    public List<FieldError> errors() {
        return List.copyOf(errors);
    }

    /**
     * Whether {@code text} can be stored and echoed as it came: PostgreSQL refuses NUL in text (a
     * 500 if it got that far), and unpaired surrogates cannot be encoded as UTF-8 on the way out.
     */
    private static boolean storable(String text) {
        for (int i = 0; i < text.length(); i++) {
            char ch = text.charAt(i);
            if (Character.isISOControl(ch) && ch != '\t' && ch != '\n' && ch != '\r') {
                return false;
            }
            if (Character.isHighSurrogate(ch)
                    && i + 1 < text.length()
                    && Character.isLowSurrogate(text.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(ch)) {
                return false;
            }
        }
        return true;
    }
}
