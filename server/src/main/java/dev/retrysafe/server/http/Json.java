package dev.retrysafe.server.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;

/** The one JSON configuration of the server: strict in, compact out. Threadsafe. */
public final class Json {

    /** Strict: duplicate keys, trailing data and floats where integers belong are errors to the caller. */
    public static final ObjectMapper MAPPER = JsonMapper.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .build();

    /** The media type of JSON responses. */
    public static final String CONTENT_TYPE = "application/json; charset=utf-8";

    /** The media type of problem responses. */
    public static final String PROBLEM_CONTENT_TYPE = "application/problem+json";

    private Json() {}

    /** {@code value} as UTF-8 JSON bytes. */
    public static byte[] bytes(Object value) {
        try {
            return MAPPER.writeValueAsBytes(value);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("not serialisable as JSON: " + value.getClass(), e);
        }
    }
}
