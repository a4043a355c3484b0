package dev.retrysafe.common;

/**
 * The one matcher of event-type patterns, for the live stream's subscriptions and for webhook
 * endpoints' {@code event_types} alike, so that a pattern means the same in both. A topic is
 * dotted lower-case words ({@code payment.succeeded}); a pattern is a topic (itself), a prefix
 * ending in {@code .*} ({@code payment.*}: every topic that starts with {@code payment.}, at any
 * depth), or {@code *} (every topic). Length bounds are each caller's own. Stateless and
 * threadsafe.
 */
public final class TopicPatterns {

    /** The pattern of every topic. */
    public static final String ALL = "*";

    private static final String ANY_BELOW = ".*";

    private TopicPatterns() {}

    /** Whether {@code topic} is dotted lower-case words: {@code [a-z0-9_]+} joined by single dots. */
    public static boolean isTopic(String topic) {
        if (topic.isEmpty() || topic.charAt(0) == '.' || topic.charAt(topic.length() - 1) == '.') {
            return false;
        }
        for (int i = 0; i < topic.length(); i++) {
            char c = topic.charAt(i);
            if (c == '.') {
                if (topic.charAt(i - 1) == '.') {
                    return false;
                }
            } else if (!(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_')) {
                return false;
            }
        }
        return true;
    }

    /** Whether {@code pattern} is {@code *}, a topic, or a topic followed by {@code .*}. */
    public static boolean isPattern(String pattern) {
        if (pattern.equals(ALL)) {
            return true;
        }
        return isTopic(pattern.endsWith(ANY_BELOW) ? pattern.substring(0, pattern.length() - 2) : pattern);
    }

    /** Whether a message of {@code topic} is wanted by {@code pattern} (a valid pattern). */
    public static boolean matches(String pattern, String topic) {
        if (pattern.equals(ALL) || pattern.equals(topic)) {
            return true;
        }
        // "payment.*" takes "payment.succeeded": the prefix with its dot, and something after it
        return pattern.endsWith(ANY_BELOW)
                && topic.length() > pattern.length() - 1
                && topic.startsWith(pattern.substring(0, pattern.length() - 1));
    }
}
