package dev.retrysafe.spring.internal;

import dev.retrysafe.spring.Idempotent;
import dev.retrysafe.spring.RateLimited;
import org.jspecify.annotations.Nullable;

/**
 * What the starter needs to know of the handler method a request goes to: its mapping's pattern
 * and its annotations (the method's, else its class's). Immutable.
 *
 * @param pattern the pattern of the mapping that matched, such as {@code /v1/payments/{id}}
 */
public record HandlerRoute(
        String pattern,
        @Nullable Idempotent idempotent,
        @Nullable RateLimited rateLimited) {

    /** Whether Retrysafe has anything to do for this route. */
    public boolean annotated() {
        return idempotent != null || rateLimited != null;
    }
}
