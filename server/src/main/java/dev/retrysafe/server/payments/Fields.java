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
        return n.textValue();
    }

    void reject(String name, String detail) {
        errors.add(new FieldError(name, detail));
    }

    List<FieldError> errors() {
        return List.copyOf(errors);
    }
}
