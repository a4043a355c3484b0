package dev.retrysafe.server.webhooks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.retrysafe.server.http.FieldError;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Reads the members of a webhook request body, collecting one {@link FieldError} per bad member.
 * Not threadsafe: one instance per request.
 */
final class EndpointFields {

    static final int MAX_URL_LENGTH = 2048;
    static final int MAX_DESCRIPTION_LENGTH = 1024;
    static final int MAX_EVENT_TYPES = 100;
    private static final int MAX_EVENT_TYPE_LENGTH = 255;
    private static final Pattern EVENT_TYPE = Pattern.compile("[a-z0-9_]+(\\.[a-z0-9_]+)*");

    private final ObjectNode body;
    private final List<FieldError> errors = new ArrayList<>();

    EndpointFields(ObjectNode body, Set<String> known) {
        this.body = body;
        for (Iterator<String> it = body.fieldNames(); it.hasNext(); ) {
            String name = it.next();
            if (!known.contains(name)) {
                errors.add(new FieldError(name, "is not a known field"));
            }
        }
    }

    boolean has(String name) {
        JsonNode n = body.get(name);
        return n != null && !n.isNull();
    }

    @Nullable String text(String name, boolean required, int maxLength) {
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
        String t = n.textValue();
        if (t.length() > maxLength) {
            errors.add(new FieldError(name, "must be at most " + maxLength + " characters long"));
            return null;
        }
        if (!storable(t)) {
            errors.add(new FieldError(name, "must not contain control characters (other than tab and line breaks)"
                    + " or unpaired surrogates"));
            return null;
        }
        return t;
    }

    /** 1..100 event types such as {@code payment.succeeded}, or {@code *} for every type. */
    @Nullable Set<String> eventTypes(String name, boolean required) {
        JsonNode n = body.get(name);
        if (n == null || n.isNull()) {
            if (required) {
                errors.add(new FieldError(name, "is required"));
            }
            return null;
        }
        if (!n.isArray() || n.isEmpty() || n.size() > MAX_EVENT_TYPES) {
            errors.add(new FieldError(name, "must be a list of 1 to " + MAX_EVENT_TYPES
                    + " event types such as \"payment.succeeded\", or [\"*\"] for every type"));
            return null;
        }
        Set<String> types = new LinkedHashSet<>();
        for (JsonNode item : n) {
            if (!item.isTextual() || item.textValue().length() > MAX_EVENT_TYPE_LENGTH
                    || !(item.textValue().equals("*") || EVENT_TYPE.matcher(item.textValue()).matches())) {
                errors.add(new FieldError(name, "entries must be event types such as \"payment.succeeded\" or \"*\""));
                return null;
            }
            types.add(item.textValue());
        }
        return types;
    }

    @Nullable Boolean bool(String name) {
        JsonNode n = body.get(name);
        if (n == null || n.isNull()) {
            return null;
        }
        if (!n.isBoolean()) {
            errors.add(new FieldError(name, "must be true or false"));
            return null;
        }
        return n.booleanValue();
    }

    /** An RFC 3339 time such as {@code 2026-01-31T12:00:00Z}. */
    @Nullable Instant time(String name, boolean required) {
        String t = text(name, required, 64);
        if (t == null) {
            return null;
        }
        try {
            return java.time.OffsetDateTime.parse(t).toInstant();
        } catch (DateTimeParseException e) {
            errors.add(new FieldError(name, "must be an RFC 3339 time such as 2026-01-31T12:00:00Z"));
            return null;
        }
    }

    void reject(String name, String detail) {
        errors.add(new FieldError(name, detail));
    }

    List<FieldError> errors() {
        return List.copyOf(errors);
    }

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
