package dev.retrysafe.webhooks;

import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * The request headers a {@link WebhookVerifier} reads: the value of a header by its name, whatever
 * the case of the name on the wire. A Jakarta {@code HttpServletRequest::getHeader} is one as it
 * stands (its lookup ignores case); {@link #of(Map)} adapts a map. Implementations used by one
 * verification only need to be safe for that thread.
 */
@FunctionalInterface
public interface HeaderLookup {

    /**
     * The value of the header named {@code name} (given in lower case), ignoring the case of the
     * name; {@code null} if the request has no such header. With several headers of one name, the
     * first.
     */
    @Nullable
    String get(String name);

    /** A lookup over a map of names to values, ignoring the case of names; the map is copied. */
    static HeaderLookup of(Map<String, String> headers) {
        Objects.requireNonNull(headers, "headers");
        TreeMap<String, String> copy = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        headers.forEach((name, value) -> copy.putIfAbsent(name, value));
        return copy::get;
    }
}
