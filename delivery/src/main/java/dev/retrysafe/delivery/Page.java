package dev.retrysafe.delivery;

import java.util.List;

/**
 * One page of a list, newest first. Immutable and threadsafe.
 *
 * @param items   the page's items
 * @param hasMore whether older items follow the last one
 * @param <T>     the item type
 */
public record Page<T>(List<T> items, boolean hasMore) {

    /** Copies the list. */
    public Page {
        items = List.copyOf(items);
    }
}
