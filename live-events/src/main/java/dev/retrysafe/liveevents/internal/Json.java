package dev.retrysafe.liveevents.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;

/** The streams' JSON: strict in (duplicate keys and trailing data are errors), compact out. Threadsafe. */
final class Json {

    /** Reads clients' messages and other instances' notifications; writes every frame. */
    static final ObjectMapper MAPPER = JsonMapper.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .build();

    private Json() {}

    /** {@code value} as UTF-8 JSON bytes. */
    static byte[] bytes(Object value) {
        try {
            return MAPPER.writeValueAsBytes(value);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("not serialisable as JSON: " + value.getClass(), e);
        }
    }
}
