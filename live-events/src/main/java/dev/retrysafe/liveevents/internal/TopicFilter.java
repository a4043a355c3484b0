package dev.retrysafe.liveevents.internal;

import java.util.List;
import java.util.regex.Pattern;

/**
 * Which messages a subscription wants, by topic: an event's type ({@code payment.succeeded}),
 * {@code delivery.attempted} or {@code job.updated}. A pattern is a topic, a prefix ending in
 * {@code .*} ({@code payment.*}: every topic starting {@code payment.}), or {@code *} (all).
 * Immutable and threadsafe.
 */
final class TopicFilter {

    /** Most patterns in one subscription. */
    static final int MAX_PATTERNS = 50;
    /** Everything. */
    static final TopicFilter ALL = new TopicFilter(List.of("*"));

    private static final Pattern PATTERN = Pattern.compile("\\*|[a-z0-9_]{1,40}(\\.[a-z0-9_]{1,40}){0,4}(\\.\\*)?");
    private static final int MAX_PATTERN_LENGTH = 62;

    private final List<String> patterns;

    private TopicFilter(List<String> patterns) {
        this.patterns = List.copyOf(patterns);
    }

    /**
     * The filter of {@code patterns}, or {@code null} if there are none, more than
     * {@link #MAX_PATTERNS}, or one is not a valid pattern.
     */
    static @org.jspecify.annotations.Nullable TopicFilter of(List<String> patterns) {
        if (patterns.isEmpty() || patterns.size() > MAX_PATTERNS) {
            return null;
        }
        for (String p : patterns) {
            if (p.length() > MAX_PATTERN_LENGTH || !PATTERN.matcher(p).matches()) {
                return null;
            }
        }
        return new TopicFilter(patterns);
    }

    /** Whether a message of {@code topic} passes. */
    boolean matches(String topic) {
        for (String p : patterns) {
            if (p.equals("*")
                    || p.equals(topic)
                    || p.endsWith(".*") && topic.startsWith(p.substring(0, p.length() - 1))) {
                return true;
            }
        }
        return false;
    }

    /** The patterns, as given. */
    List<String> patterns() {
        return patterns;
    }
}
