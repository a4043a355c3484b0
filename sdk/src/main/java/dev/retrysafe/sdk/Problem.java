package dev.retrysafe.sdk;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * An RFC 9457 problem details object, as the Retrysafe API answers errors.
 * Immutable and threadsafe.
 *
 * @param type the problem type, a URI such as {@code /problems/idempotency-key-reused}
 * @param title a short summary of the type
 * @param status the HTTP status; 0 for a problem that came without one (a job's {@code error})
 * @param detail what happened this time, or {@code null}
 * @param members every member of the object as read, extensions included ({@code errors},
 *     {@code retryable}, ...): strings, numbers, booleans, lists and maps
 */
public record Problem(
        String type, String title, int status, @Nullable String detail, Map<String, @Nullable Object> members) {

    /** Copies the members. */
    public Problem {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(title, "title");
        members = Collections.unmodifiableMap(new LinkedHashMap<>(members));
    }

    /** Whether the API marked the problem {@code "retryable": true}. */
    public boolean retryable() {
        return Boolean.TRUE.equals(members.get("retryable"));
    }
}
