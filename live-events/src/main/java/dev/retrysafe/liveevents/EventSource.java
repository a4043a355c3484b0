package dev.retrysafe.liveevents;

import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;

/**
 * Where the streams' events come from: the application's store of events, each account's in one
 * order. An event is stored without a position; {@link #number} gives the committed ones their
 * positions, and the streams read by position, so a resumed stream misses nothing and repeats
 * nothing. Each call runs in a transaction of its own. Implementations are threadsafe.
 */
public interface EventSource {

    /**
     * What {@link #number} did.
     *
     * @param last     the account's last position now (0 before its first event)
     * @param numbered how many events it numbered; {@code max} means more may be waiting
     */
    record Numbered(long last, int numbered) {}

    /**
     * Numbers up to {@code max} of the account's committed events without a position, in the
     * order they were written.
     *
     * @throws SQLException also when another caller numbered the account at the same moment (the
     *                      streams then simply ask again)
     */
    Numbered number(String accountId, int max) throws SQLException;

    /** The account's events positioned after {@code position}, in order, at most {@code limit}. */
    List<PositionedEvent> after(String accountId, long position, int limit) throws SQLException;

    /** The position of the account's event {@code eventId}; empty if it has no such event or no position yet. */
    OptionalLong positionOf(String accountId, String eventId) throws SQLException;

    /**
     * Of the accounts in {@code positions}, those with news for a stream at the position given:
     * an event without a position, or a last position beyond it. Asked every poll interval.
     */
    Set<String> withNews(Map<String, Long> positions) throws SQLException;

    /** Whether {@code text} has the form of an event id ({@code resume} is refused otherwise). */
    boolean isEventId(String text);
}
