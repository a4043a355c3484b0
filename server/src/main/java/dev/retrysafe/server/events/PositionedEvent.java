package dev.retrysafe.server.events;

import java.util.Map;

/**
 * An event with its position in its account's live stream.
 *
 * @param seq      the position: 1, 2, 3... in the order the stream numbered the account's events
 * @param type     the event's type
 * @param envelope the event as {@code GET /v1/events/{id}} shows it: {@code {id, type, timestamp, data}}
 */
public record PositionedEvent(long seq, String type, Map<String, Object> envelope) {
}
