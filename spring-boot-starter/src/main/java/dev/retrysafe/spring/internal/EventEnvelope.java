package dev.retrysafe.spring.internal;

import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.util.HexFormat;
import org.jspecify.annotations.Nullable;

/**
 * The delivered shape of an event, {@code {"id","type","timestamp","ordering_key"?,"data"}} as the
 * Retrysafe server delivers it, and new event ids. Stateless and threadsafe.
 */
public final class EventEnvelope {

    private static final SecureRandom RANDOM = new SecureRandom();

    private EventEnvelope() {}

    /** A new event id: {@code evt_} and 32 random hex digits. */
    public static String newEventId() {
        byte[] bytes = new byte[16];
        RANDOM.nextBytes(bytes);
        return "evt_" + HexFormat.of().formatHex(bytes);
    }

    /**
     * The envelope's UTF-8 bytes around {@code dataJson}, which must be one JSON value. The id and
     * the type were checked by the outbox's rules (no character that JSON would escape), and the
     * timestamp is ISO-8601, so only the data needs no further care. {@code orderingKeyJson} is the
     * ordering key already written as a JSON string (by the payload writer, so that JSON is escaped
     * in one place), left out when null.
     */
    public static byte[] bytes(String id, String type, Instant at, @Nullable String orderingKeyJson, String dataJson) {
        String json = "{\"id\":\"" + id + "\",\"type\":\"" + type + "\",\"timestamp\":\""
                + DateTimeFormatter.ISO_INSTANT.format(at) + "\","
                + (orderingKeyJson == null ? "" : "\"ordering_key\":" + orderingKeyJson + ",")
                + "\"data\":" + dataJson + "}";
        return json.getBytes(StandardCharsets.UTF_8);
    }
}
