package dev.retrysafe.ratelimit;

import java.util.Objects;

/**
 * One response header field, as rendered by {@link RateLimitHeaders}.
 *
 * @param name  the field name, for example {@code RateLimit}
 * @param value the field value, already serialized
 */
public record HeaderField(String name, String value) {

    public HeaderField {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(value, "value");
        if (name.isEmpty()) {
            throw new IllegalArgumentException("header name must not be empty");
        }
    }
}
