package dev.retrysafe.liveevents;

import java.util.Map;

/**
 * What the application tells the live streams, always after the change committed (never
 * from inside a transaction that could still roll back). Calls are cheap, never block on a
 * client, never throw, and reach the streams of every instance. Implementations are threadsafe.
 */
public interface StreamSignals {

    /** Signals that go nowhere (tools and tests without streams). */
    StreamSignals NONE = new StreamSignals() {
        @Override
        public void eventsCommitted(String accountId) {}

        @Override
        public void update(String accountId, String topic, Map<String, ?> payload) {}
    };

    /** A transaction that recorded events of {@code accountId} committed. */
    void eventsCommitted(String accountId);

    /**
     * Something of {@code accountId}'s changed and committed: streams subscribed to {@code topic}
     * get {@code {"type": topic, ...payload}}. Implies {@link #eventsCommitted}: events the account
     * committed before reach a stream before this update does.
     */
    void update(String accountId, String topic, Map<String, ?> payload);
}
