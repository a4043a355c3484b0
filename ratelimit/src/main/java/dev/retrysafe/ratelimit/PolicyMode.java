package dev.retrysafe.ratelimit;

import java.util.Locale;

/**
 * Whether a policy's refusals are answered ({@link #ENFORCE}) or only counted ({@link #SHADOW}),
 * so that a new limit can be tried on live traffic before it refuses anyone.
 */
public enum PolicyMode {
    /** Refuses what does not fit: the request is answered {@code 429}. */
    ENFORCE,
    /**
     * Decides and spends like an enforced policy, but never refuses: a request it would have
     * refused goes on, spends nothing under it, and is reported as a would-be refusal (a state
     * whose {@linkplain PolicyState#retryAfterMicros() wait} is positive in an
     * {@link Decision.Allowed}). Its charge is decided only for requests the enforced policies
     * allowed, after them; it never appears in the client-facing headers.
     */
    SHADOW;

    /** Parses {@code enforce} or {@code shadow} (case-insensitive). */
    public static PolicyMode parse(String name) {
        return switch (name.trim().toLowerCase(Locale.ROOT)) {
            case "enforce" -> ENFORCE;
            case "shadow" -> SHADOW;
            default -> throw new IllegalArgumentException("mode must be enforce or shadow: " + name);
        };
    }
}
