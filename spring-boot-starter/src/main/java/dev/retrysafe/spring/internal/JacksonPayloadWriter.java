package dev.retrysafe.spring.internal;

import dev.retrysafe.spring.WebhookPayloadWriter;
import java.util.Objects;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.json.JsonMapper;

/** Writes payloads with a Jackson 3 {@link JsonMapper}, and checks raw JSON with it. Threadsafe. */
public final class JacksonPayloadWriter implements WebhookPayloadWriter {

    private final JsonMapper mapper;

    /** A writer using {@code mapper}. */
    public JacksonPayloadWriter(JsonMapper mapper) {
        this.mapper = Objects.requireNonNull(mapper, "mapper");
    }

    @Override
    public String json(Object payload) {
        try {
            return mapper.writeValueAsString(Objects.requireNonNull(payload, "payload"));
        } catch (JacksonException e) {
            throw new IllegalArgumentException(
                    "payload of type " + payload.getClass().getName() + " cannot be written as JSON", e);
        }
    }

    @Override
    public void checkJson(String json) {
        try {
            mapper.readTree(json);
        } catch (JacksonException e) {
            throw new IllegalArgumentException("json is not one JSON value: " + e.getOriginalMessage(), e);
        }
    }
}
