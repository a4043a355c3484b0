package dev.retrysafe.liveevents.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Signals as PostgreSQL {@code NOTIFY} payloads: {@code {"from": instance, "s": [{"a": account},
 * {"a": account, "t": topic, "m": message}, ...]}}, each under PostgreSQL's limit of 8000 bytes.
 * The wakes of one account in one payload are sent once. Stateless.
 */
final class NotifyPayload {

    /** Below PostgreSQL's 8000 bytes, with room for the envelope. */
    static final int MAX_BYTES = 7900;

    /** Decoded payload: who sent it and its signals. */
    record Decoded(String from, List<Signal> signals) {}

    private NotifyPayload() {}

    /**
     * The payloads carrying {@code signals} from {@code from}, in order. An update too large for
     * one payload travels as a wake (its message is lost; {@code tooLarge} counts it).
     */
    static List<String> encode(String from, List<Signal> signals, Runnable tooLarge) {
        int empty = envelope(from, List.of()).length();
        List<String> payloads = new ArrayList<>();
        List<String> items = new ArrayList<>();
        Set<String> woken = new HashSet<>();
        int size = empty;
        for (Signal signal : signals) {
            String item = item(signal);
            if (item.getBytes(StandardCharsets.UTF_8).length > MAX_BYTES / 2) {
                tooLarge.run();
                signal = new Signal.Wake(signal.accountId());
                item = item(signal);
            }
            int bytes = item.getBytes(StandardCharsets.UTF_8).length + 1;
            if (size + bytes > MAX_BYTES) {
                payloads.add(envelope(from, items));
                items.clear();
                woken.clear();
                size = empty;
            }
            // the receiver reads every committed event on the first wake of a payload
            if (signal instanceof Signal.Wake && !woken.add(signal.accountId())) {
                continue;
            }
            items.add(item);
            size += bytes;
        }
        if (!items.isEmpty()) {
            payloads.add(envelope(from, items));
        }
        return payloads;
    }

    /** The payload's signals; empty (from "") if it is not one of ours. */
    static Decoded decode(String payload) {
        try {
            JsonNode root = Json.MAPPER.readTree(payload);
            if (root == null
                    || !root.path("from").isTextual()
                    || !root.path("s").isArray()) {
                return new Decoded("", List.of());
            }
            List<Signal> signals = new ArrayList<>();
            for (JsonNode item : root.get("s")) {
                if (!item.path("a").isTextual()) {
                    continue;
                }
                String account = item.get("a").asText();
                if (item.path("t").isTextual() && item.path("m").isTextual()) {
                    signals.add(new Signal.Update(
                            account,
                            item.get("t").asText(),
                            Frame.of(item.get("m").asText())));
                } else {
                    signals.add(new Signal.Wake(account));
                }
            }
            return new Decoded(root.get("from").asText(), signals);
        } catch (JsonProcessingException e) {
            return new Decoded("", List.of());
        }
    }

    private static String item(Signal signal) {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("a", signal.accountId());
        if (signal instanceof Signal.Update u) {
            m.put("t", u.topic());
            m.put("m", u.frame().text());
        }
        return text(m);
    }

    private static String envelope(String from, List<String> items) {
        return "{\"from\":" + text(from) + ",\"s\":[" + String.join(",", items) + "]}";
    }

    private static String text(Object value) {
        return new String(Json.bytes(value), StandardCharsets.UTF_8);
    }
}
