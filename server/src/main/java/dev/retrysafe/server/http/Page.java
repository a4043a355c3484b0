package dev.retrysafe.server.http;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * One page of a list, newest first.
 *
 * @param items the page's items
 * @param hasMore whether older items follow the last one
 * @param <T> the item type
 */
public record Page<T>(List<T> items, boolean hasMore) {

    /** Copies the list. */
    public Page {
        items = List.copyOf(items);
    }

    /** The API representation {@code {"data": [...], "has_more": bool}}. */
    public Map<String, Object> json(Function<T, ?> render) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("object", "list");
        m.put("data", items.stream().map(render).toList());
        m.put("has_more", hasMore);
        return m;
    }
}
