package dev.retrysafe.server.streams;

import dev.retrysafe.liveevents.EventSource;
import dev.retrysafe.liveevents.PositionedEvent;
import dev.retrysafe.server.db.Ids;
import dev.retrysafe.server.db.Transactions;
import dev.retrysafe.server.events.StreamPositions;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;

/** The stream's events: the server's {@code events} table, by {@link StreamPositions}. Threadsafe. */
final class DatabaseEvents implements EventSource {

    private final Transactions transactions;

    DatabaseEvents(Transactions transactions) {
        this.transactions = transactions;
    }

    @Override
    public Numbered number(String accountId, int max) throws SQLException {
        StreamPositions.Assigned assigned =
                transactions.inNewTransaction(c -> StreamPositions.assign(c, accountId, max));
        return new Numbered(assigned.last(), assigned.numbered());
    }

    @Override
    public List<PositionedEvent> after(String accountId, long position, int limit) throws SQLException {
        return transactions.inNewTransaction(c -> StreamPositions.after(c, accountId, position, limit));
    }

    @Override
    public OptionalLong positionOf(String accountId, String eventId) throws SQLException {
        return transactions.inNewTransaction(c -> StreamPositions.positionOf(c, accountId, eventId));
    }

    @Override
    public Set<String> withNews(Map<String, Long> positions) throws SQLException {
        return transactions.inNewTransaction(c -> StreamPositions.withNews(c, positions));
    }

    @Override
    public boolean isEventId(String text) {
        return Ids.looksLike("evt_", text);
    }
}
