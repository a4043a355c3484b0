package dev.retrysafe.server.webhooks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.retrysafe.delivery.EndpointHeaders;
import dev.retrysafe.delivery.EventTypePatterns;
import dev.retrysafe.delivery.WebhookEndpoints;
import dev.retrysafe.server.events.EventTypes;
import dev.retrysafe.server.http.BodyFields;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/** The webhook-specific members of request bodies; the generic ones are read by {@link BodyFields}. */
final class EndpointFields {

    static final int MAX_URL_LENGTH = 2048;
    static final int MAX_DESCRIPTION_LENGTH = 1024;
    static final int MAX_EVENT_TYPES = 100;
    private static final int MAX_EVENT_TYPE_LENGTH = 255;

    private EndpointFields() {}

    /**
     * What a request body says about the rate limit: nothing ({@code present} false), no limit
     * ({@code null}), or attempts per second.
     *
     * @param present    whether the member was sent (an invalid one counts as not sent; its error is recorded)
     * @param perSecond  the limit; {@code null} with {@code present}: no limit
     */
    record RateLimit(boolean present, @Nullable Integer perSecond) {
        static final RateLimit ABSENT = new RateLimit(false, null);
    }

    /**
     * {@code rate_limit}: an integer from 1 to {@value WebhookEndpoints#MAX_RATE_LIMIT} (attempts
     * per second), or {@code null} for no limit. Read from the body itself, because
     * {@link BodyFields} does not tell an explicit {@code null} from an absent member.
     */
    static RateLimit rateLimit(BodyFields f, ObjectNode body, String name) {
        JsonNode n = body.get(name);
        if (n == null) {
            return RateLimit.ABSENT;
        }
        if (n.isNull()) {
            return new RateLimit(true, null);
        }
        if (!n.isIntegralNumber()
                || !n.canConvertToInt()
                || n.intValue() < 1
                || n.intValue() > WebhookEndpoints.MAX_RATE_LIMIT) {
            f.reject(
                    name,
                    "must be an integer from 1 to " + WebhookEndpoints.MAX_RATE_LIMIT
                            + " (attempts per second), or null for no limit");
            return RateLimit.ABSENT;
        }
        return new RateLimit(true, n.intValue());
    }

    /**
     * 1..100 patterns of the event types the server sends, as the live stream takes them
     * ({@link EventTypePatterns}): a type such as {@code payment.succeeded}, a prefix such as
     * {@code payment.*}, or {@code *} for every type. A pattern that takes none of
     * {@link EventTypes#ALL} (a typo such as {@code payment.created}) is refused, naming them.
     */
    static @Nullable Set<String> eventTypes(BodyFields f, String name, boolean required) {
        JsonNode n = f.member(name);
        if (n == null) {
            if (required) {
                f.reject(name, "is required");
            }
            return null;
        }
        if (!n.isArray() || n.isEmpty() || n.size() > MAX_EVENT_TYPES) {
            f.reject(
                    name,
                    "must be a list of 1 to " + MAX_EVENT_TYPES
                            + " event types such as \"payment.succeeded\", prefixes such as \"payment.*\", or [\"*\"]"
                            + " for every type");
            return null;
        }
        Set<String> types = new LinkedHashSet<>();
        for (JsonNode item : n) {
            if (!item.isTextual()
                    || item.textValue().length() > MAX_EVENT_TYPE_LENGTH
                    || !EventTypePatterns.isPattern(item.textValue())) {
                f.reject(
                        name,
                        "entries must be event types such as \"payment.succeeded\", prefixes such as \"payment.*\","
                                + " or \"*\"; the event types are " + known());
                return null;
            }
            String pattern = item.textValue();
            if (EventTypes.ALL.stream().noneMatch(type -> EventTypePatterns.matches(pattern, type))) {
                f.reject(
                        name,
                        "\"" + pattern + "\" is not an event type the server sends"
                                + (pattern.endsWith(".*") ? " (no event type starts with that prefix)" : "")
                                + "; the event types are " + known()
                                + ", and a prefix such as \"payment.*\" or \"*\" takes several");
                return null;
            }
            types.add(pattern);
        }
        return types;
    }

    /**
     * {@code headers}: an object of header name to string value, sent on every attempt and kept
     * like the secret (shown again by name only, as {@code header_names}). On a PATCH it replaces
     * the whole set; {@code {}} or {@code null} removes them. Absent: null. The first rule broken
     * is reported, naming the header but never quoting a value.
     */
    static @Nullable Map<String, String> headers(BodyFields f, ObjectNode body, String name) {
        JsonNode n = body.get(name);
        if (n == null) {
            return null;
        }
        if (n.isNull()) {
            return Map.of();
        }
        if (!n.isObject() || n.size() > EndpointHeaders.MAX_COUNT) {
            f.reject(
                    name,
                    "must be an object of at most " + EndpointHeaders.MAX_COUNT
                            + " header names to string values, such as {\"X-Api-Key\": \"...\"}");
            return null;
        }
        Map<String, String> headers = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> e : n.properties()) {
            if (!e.getValue().isTextual()) {
                f.reject(name, "the value of header " + e.getKey() + " must be a string");
                return null;
            }
            headers.put(e.getKey(), e.getValue().textValue());
        }
        String problem = EndpointHeaders.problem(headers); // names the header, never quotes a value
        if (problem != null) {
            f.reject(name, problem);
            return null;
        }
        return headers;
    }

    /** The known event types, for messages: {@code "payment.succeeded", "payment.failed", ...}. */
    private static String known() {
        return EventTypes.ALL.stream().map(t -> "\"" + t + "\"").collect(Collectors.joining(", "));
    }
}
