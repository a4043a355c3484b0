package dev.retrysafe.liveevents.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/** A message from a client, parsed; anything malformed is an {@link Invalid} saying why. */
sealed interface ClientMessage {

    /** Longest API key read from an {@code auth} message. */
    int MAX_KEY_LENGTH = 512;
    /** Longest {@code id} of a {@code ping} echoed in its {@code pong}. */
    int MAX_PING_ID_LENGTH = 100;

    /** {@code {"type":"auth","api_key":"..."}}. The key is a secret: never logged, never echoed. */
    record Auth(String apiKey) implements ClientMessage {
        @Override
        public String toString() {
            return "Auth[apiKey=***]";
        }
    }

    /** {@code {"type":"subscribe","event_types":[...]}}. */
    record Subscribe(TopicFilter filter) implements ClientMessage {}

    /** {@code {"type":"resume","after":"evt_...","event_types":[...]}} ({@code event_types} optional: all). */
    record Resume(String after, TopicFilter filter) implements ClientMessage {}

    /** {@code {"type":"ping","id":...}} ({@code id} optional, echoed). */
    record Ping(@Nullable JsonNode id) implements ClientMessage {}

    /** Not a message the server takes: {@code code} and {@code message} say why. */
    record Invalid(String code, String message) implements ClientMessage {}

    /** Parses one text message; {@code isEventId} says which texts a {@code resume} may name. */
    static ClientMessage parse(String text, Predicate<String> isEventId) {
        JsonNode node;
        try {
            node = Json.MAPPER.readTree(text);
        } catch (JsonProcessingException e) {
            return invalid("not valid JSON");
        }
        if (node == null || !node.isObject() || !node.path("type").isTextual()) {
            return invalid("a message is a JSON object with a string member \"type\"");
        }
        String type = node.get("type").asText();
        return switch (type) {
            case "auth" -> auth(node);
            case "subscribe" -> subscribe(node);
            case "resume" -> resume(node, isEventId);
            case "ping" -> ping(node);
            default -> new Invalid("unknown_type", "type must be auth, subscribe, resume or ping");
        };
    }

    private static ClientMessage auth(JsonNode node) {
        JsonNode key = node.path("api_key");
        if (!key.isTextual() || key.asText().isEmpty() || key.asText().length() > MAX_KEY_LENGTH) {
            return invalid("auth needs \"api_key\": your API key");
        }
        return new Auth(key.asText());
    }

    private static ClientMessage subscribe(JsonNode node) {
        TopicFilter filter = filter(node.path("event_types"));
        return filter == null ? invalid(filterRule("subscribe")) : new Subscribe(filter);
    }

    private static ClientMessage resume(JsonNode node, Predicate<String> isEventId) {
        JsonNode after = node.path("after");
        if (!after.isTextual() || !isEventId.test(after.asText())) {
            return invalid("resume needs \"after\": the id (evt_...) of the last event you received");
        }
        TopicFilter filter = node.has("event_types") ? filter(node.get("event_types")) : TopicFilter.ALL;
        return filter == null ? invalid(filterRule("resume")) : new Resume(after.asText(), filter);
    }

    private static ClientMessage ping(JsonNode node) {
        JsonNode id = node.get("id");
        if (id != null && !(id.isTextual() && id.asText().length() <= MAX_PING_ID_LENGTH || id.isIntegralNumber())) {
            return invalid(
                    "a ping's \"id\" is a string of at most " + MAX_PING_ID_LENGTH + " characters or an integer");
        }
        return new Ping(id);
    }

    private static @Nullable TopicFilter filter(JsonNode list) {
        if (!list.isArray()) {
            return null;
        }
        List<String> patterns = new ArrayList<>();
        for (JsonNode p : list) {
            if (!p.isTextual()) {
                return null;
            }
            patterns.add(p.asText());
        }
        return TopicFilter.of(patterns);
    }

    private static String filterRule(String type) {
        return type + "'s \"event_types\" is a list of 1 to " + TopicFilter.MAX_PATTERNS
                + " event types (payment.succeeded), prefixes (payment.*) or \"*\"";
    }

    private static Invalid invalid(String message) {
        return new Invalid("invalid_message", message);
    }
}
