package dev.retrysafe.server.payments;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.retrysafe.server.http.FieldError;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Reads the members of a JSON request object, collecting one {@link FieldError} per bad member
 * instead of stopping at the first, so a client can fix everything in one go. Not threadsafe:
 * one instance per request.
 */
final class Fields {

    private final ObjectNode body;
    private final List<FieldError> errors = new ArrayList<>();

    Fields(ObjectNode body, Set<String> known) {
        this.body = body;
        for (Iterator<String> it = body.fieldNames(); it.hasNext(); ) {
            String name = it.next();
            if (!known.contains(name)) {
                errors.add(new FieldError(name, "is not a known field"));
            }
        }
    }

    /** An integer in {@code [min, max]}; {@code null} when absent and optional, or invalid. */
    @Nullable Long integer(String name, boolean required, long min, long max) {
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
    @Nullable String string(String name, boolean required, int maxLength) {
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
            errors.add(new FieldError(name, "must not contain control characters (other than tab and"
                    + " line breaks) or unpaired surrogates"));
            return null;
        }
        return n.textValue();
    }

    void reject(String name, String detail) {
        errors.add(new FieldError(name, detail));
    }

    List<FieldError> errors() {
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
            if (Character.isHighSurrogate(ch) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(ch)) {
                return false;
            }
        }
        return true;
    }
}
