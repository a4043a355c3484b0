package dev.retrysafe.server.accounts;

import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * A customer of the API; every resource belongs to exactly one.
 *
 * @param id {@code acct_...}
 * @param name a display name
 * @param plan {@code free}, {@code pro} or {@code enterprise}
 * @param createdAt when it was created, which decides its rate-limit policy set; {@code null} when
 *        not known (the current set)
 * @param rateLimitVersion the rate-limit policy set it is pinned to, or {@code null}
 */
public record Account(
        String id,
        String name,
        String plan,
        @Nullable Instant createdAt,
        @Nullable String rateLimitVersion) {

    /** An account whose creation time and pin are not known (the current set). */
    public Account(String id, String name, String plan) {
        this(id, name, plan, null, null);
    }
}
