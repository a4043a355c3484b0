package dev.retrysafe.liveevents.internal;

import com.fasterxml.jackson.databind.JsonNode;
import dev.retrysafe.liveevents.LiveEventsConfig;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/** The JSON text of every message the server sends on a stream ({@code docs/live-events.md}). Stateless. */
final class ServerMessages {

    private ServerMessages() {}

    /** After authentication: the connection's id and its limits. */
    static String welcome(String connectionId, LiveEventsConfig config) {
        Map<String, Object> limits = new LinkedHashMap<>();
        limits.put("message_limit", config.messageLimit());
        limits.put("message_window_seconds", config.messageWindow().toSeconds());
        limits.put("max_message_bytes", config.maxMessageBytes());
        limits.put("buffer_messages", config.bufferMessages());
        limits.put("max_replay", config.maxReplay());
        return text(message("welcome", "connection_id", connectionId, "limits", limits));
    }

    /** A subscription took effect; what follows is live. */
    static String subscribed(TopicFilter filter) {
        return text(message("subscribed", "event_types", filter.patterns()));
    }

    /** A resume replayed {@code replayed} events after {@code after}; what follows is live. */
    static String resumed(String after, int replayed, TopicFilter filter) {
        Map<String, Object> m = message("resumed", "after", after, "replayed", replayed);
        m.put("event_types", filter.patterns());
        return text(m);
    }

    /** One event, as {@code GET /v1/events/{id}} shows it. */
    static String event(Map<String, Object> envelope) {
        return text(message("event", "event", envelope));
    }

    /** A change of the account's (a delivery attempt, a job): {@code payload}'s members after {@code type}. */
    static String update(String topic, Map<String, ?> payload) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("type", topic);
        m.putAll(payload);
        return text(m);
    }

    /** The answer to a ping, echoing its id. */
    static String pong(@Nullable JsonNode id) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("type", "pong");
        if (id != null) {
            m.put("id", id);
        }
        return text(m);
    }

    /** An error; the connection stays open unless a close follows. */
    static String error(String code, String message) {
        return text(message("error", "code", code, "message", message));
    }

    /** Over the message limit: what was sent is dropped; {@code retryAfter} seconds until the next fits. */
    static String rateLimited(long retryAfterSeconds, LiveEventsConfig config) {
        Map<String, Object> m = message(
                "error",
                "code",
                "rate_limited",
                "message",
                "More than " + config.messageLimit() + " messages in "
                        + config.messageWindow().toSeconds()
                        + " s: messages are dropped until retry_after seconds have passed; going on closes the connection.");
        m.put("retry_after", retryAfterSeconds);
        return text(m);
    }

    /** The UTF-8 length of {@code text} (what the buffer limit counts). */
    static int bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8).length;
    }

    private static Map<String, Object> message(String type, String k1, Object v1) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("type", type);
        m.put(k1, v1);
        return m;
    }

    private static Map<String, Object> message(String type, String k1, Object v1, String k2, Object v2) {
        Map<String, Object> m = message(type, k1, v1);
        m.put(k2, v2);
        return m;
    }

    private static String text(Map<String, ?> message) {
        return new String(Json.bytes(message), StandardCharsets.UTF_8);
    }
}
