package dev.retrysafe.delivery;

import dev.retrysafe.common.TopicPatterns;

/**
 * What an endpoint's event types may be, and which events each takes: an event type
 * ({@code payment.succeeded}), a prefix ending in {@code .*} ({@code payment.*}: every type that
 * starts with {@code payment.}), or {@code *} (every type). The outbox's fan-out decides with
 * {@link #matches}, and Retrysafe's live-events stream reads its subscriptions with the same
 * matcher, so a pattern means the same in both. Stateless and threadsafe.
 */
public final class EventTypePatterns {

    /** The pattern that takes every event type. */
    public static final String ALL = TopicPatterns.ALL;

    private EventTypePatterns() {}

    /** Whether {@code pattern} is an event type, a prefix such as {@code payment.*}, or {@code *}. */
    public static boolean isPattern(String pattern) {
        return TopicPatterns.isPattern(pattern);
    }

    /** Whether an event of {@code eventType} is delivered to an endpoint subscribed to {@code pattern}. */
    public static boolean matches(String pattern, String eventType) {
        return TopicPatterns.matches(pattern, eventType);
    }
}
