package dev.retrysafe.liveevents.internal;

import dev.retrysafe.common.TopicPatterns;
import java.util.List;

/**
 * Which messages a subscription wants, by topic: an event's type ({@code payment.succeeded}),
 * {@code delivery.attempted} or {@code job.updated}. A pattern is a topic, a prefix ending in
 * {@code .*} ({@code payment.*}: every topic starting {@code payment.}), or {@code *} (all): what
 * {@link TopicPatterns} matches, the same for webhook endpoints. A stream bounds them further (at
 * most five words of 40 characters, 62 in all). Immutable and threadsafe.
 */
final class TopicFilter {

    /** Most patterns in one subscription. */
    static final int MAX_PATTERNS = 50;
    /** Everything. */
    static final TopicFilter ALL = new TopicFilter(List.of("*"));

    private static final int MAX_WORDS = 5;
    private static final int MAX_WORD_LENGTH = 40;
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
            if (p.length() > MAX_PATTERN_LENGTH || !TopicPatterns.isPattern(p) || !withinBounds(p)) {
                return null;
            }
        }
        return new TopicFilter(patterns);
    }

    /** At most {@link #MAX_WORDS} words of at most {@link #MAX_WORD_LENGTH} characters, before any {@code .*}. */
    private static boolean withinBounds(String pattern) {
        String[] words = pattern.split("\\.");
        int count = words[words.length - 1].equals("*") ? words.length - 1 : words.length;
        if (count > MAX_WORDS) {
            return false;
        }
        for (int i = 0; i < count; i++) {
            if (words[i].length() > MAX_WORD_LENGTH) {
                return false;
            }
        }
        return true;
    }

    /** Whether a message of {@code topic} passes. */
    boolean matches(String topic) {
        for (String p : patterns) {
            if (TopicPatterns.matches(p, topic)) {
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
