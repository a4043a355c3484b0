package dev.retrysafe.delivery;

import org.jspecify.annotations.Nullable;

/**
 * Which page of a list, newest first: at most {@code limit} items older than the item
 * {@code startingAfter} (its id), or the newest ones. Immutable and threadsafe.
 *
 * @param limit         1 to {@value #MAX_LIMIT}
 * @param startingAfter the id after which the page starts, or {@code null} for the first page
 */
public record PageRequest(int limit, @Nullable String startingAfter) {

    /** Largest page. */
    public static final int MAX_LIMIT = 100;

    /** Checks the limit. */
    public PageRequest {
        if (limit < 1 || limit > MAX_LIMIT) {
            throw new IllegalArgumentException("limit must be 1 to " + MAX_LIMIT + ", was " + limit);
        }
    }

    /** The first page of {@code limit} items. */
    public static PageRequest first(int limit) {
        return new PageRequest(limit, null);
    }
}
