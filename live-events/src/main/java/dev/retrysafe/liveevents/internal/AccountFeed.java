package dev.retrysafe.liveevents.internal;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One account's live subscribers on this instance and the stream position sent to them so far.
 * Confined to the {@link EventFeed}'s thread.
 */
final class AccountFeed {

    /** The last position every subscriber has been sent (or was past, for a new one). */
    long position;

    private final Map<Subscriber, TopicFilter> subscribers = new LinkedHashMap<>();

    AccountFeed(long position) {
        this.position = position;
    }

    /** Adds {@code subscriber}, or changes its filter. */
    void subscribe(Subscriber subscriber, TopicFilter filter) {
        subscribers.put(subscriber, filter);
    }

    /** Whether {@code subscriber} is subscribed. */
    boolean has(Subscriber subscriber) {
        return subscribers.containsKey(subscriber);
    }

    /** Removes {@code subscriber}; true if none is left. */
    boolean unsubscribe(Subscriber subscriber) {
        subscribers.remove(subscriber);
        return subscribers.isEmpty();
    }

    /** Whether no stream is subscribed. */
    boolean isEmpty() {
        return subscribers.isEmpty();
    }

    /** Sends {@code frame} to every subscriber whose filter takes {@code topic}. */
    void publish(String topic, Frame frame) {
        subscribers.forEach((subscriber, filter) -> {
            if (filter.matches(topic)) {
                subscriber.send(frame);
            }
        });
    }
}
