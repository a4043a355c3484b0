package dev.retrysafe.sdk;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * One page of a list ({@code {"data": [...], "has_more": ...}}), newest first.
 * Immutable and threadsafe.
 *
 * @param data the items
 * @param hasMore whether more items follow; fetch them with the last item's id as {@code startingAfter}
 * @param <T> the item type
 */
public record Page<T>(List<T> data, boolean hasMore) {

    /** Copies the items. */
    public Page {
        data = List.copyOf(data);
    }

    /** Whether the page is empty. */
    public boolean isEmpty() {
        return data.isEmpty();
    }

    /** The last item, the cursor of the next page, or {@code null} when the page is empty. */
    public @Nullable T last() {
        return data.isEmpty() ? null : data.getLast();
    }
}
