package dev.retrysafe.liveevents;

import java.util.Map;

/**
 * An event with its position in its account's live stream. Immutable when {@code envelope} is.
 *
 * @param seq      the position: 1, 2, 3... in the order the stream numbered the account's events
 * @param type     the event's type, which subscriptions filter on
 * @param envelope the event as clients receive it (the server's: {@code {id, type, timestamp, data}}),
 *                 serialisable by Jackson as it is
 */
public record PositionedEvent(long seq, String type, Map<String, Object> envelope) {}
