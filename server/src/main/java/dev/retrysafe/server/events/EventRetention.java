package dev.retrysafe.server.events;

import dev.retrysafe.leasedwork.BatchedDelete;
import dev.retrysafe.leasedwork.BatchedDelete.Step;
import dev.retrysafe.server.db.Transactions;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Deletes events older than a cutoff that have no webhook delivery left (the delivery module's
 * purge, run before, removes the finished ones): small batches chosen by the
 * {@code events_created} index, deleted by primary key, each its own short transaction
 * ({@link BatchedDelete}). An old
 * event whose delivery is still pending is passed over and goes in a later run. Several
 * instances may purge at once. Threadsafe.
 */
public final class EventRetention {

    /** Old events, oldest first, with whether a delivery still holds them; params: cutoff, limit. */
    private static final String OLD_FIRST = """
            SELECT e.id, e.created_at,
                   CASE WHEN EXISTS (SELECT 1 FROM deliveries d WHERE d.event_id = e.id) THEN 1 ELSE 0 END
            FROM events e WHERE e.created_at < ?
            ORDER BY e.created_at, e.id LIMIT ?""";

    /** The next chunk after (created_at, id); params: cutoff, created_at, created_at, id, limit. */
    private static final String OLD_AFTER = """
            SELECT e.id, e.created_at,
                   CASE WHEN EXISTS (SELECT 1 FROM deliveries d WHERE d.event_id = e.id) THEN 1 ELSE 0 END
            FROM events e WHERE e.created_at < ? AND (e.created_at > ? OR (e.created_at = ? AND e.id > ?))
            ORDER BY e.created_at, e.id LIMIT ?""";

    /** Deletes events by id unless a delivery came to hold one meanwhile; param: ids. */
    private static final String DELETE = """
            DELETE FROM events WHERE id = ANY (?)
              AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.event_id = events.id)""";

    private final Transactions transactions;
    private final int batchSize;

    /** A purge through {@code transactions}, at most {@code batchSize} events per transaction. */
    public EventRetention(Transactions transactions, int batchSize) {
        this.transactions = transactions;
        this.batchSize = batchSize;
    }

    private record Cursor(OffsetDateTime createdAt, String id) {}

    /** Deletes every event created before {@code cutoff} with no delivery left; returns how many. */
    public long purge(Instant cutoff) throws SQLException, InterruptedException {
        OffsetDateTime before = OffsetDateTime.ofInstant(cutoff, ZoneOffset.UTC);
        return BatchedDelete.<Cursor, SQLException>run(
                "event purge", after -> transactions.inNewTransaction(c -> batch(c, before, after)));
    }

    private Step<Cursor> batch(Connection c, OffsetDateTime cutoff, @Nullable Cursor after) throws SQLException {
        List<String> free = new ArrayList<>();
        int read = 0;
        @Nullable Cursor last = null;
        try (PreparedStatement s = c.prepareStatement(after == null ? OLD_FIRST : OLD_AFTER)) {
            int i = 1;
            s.setObject(i++, cutoff);
            if (after != null) {
                s.setObject(i++, after.createdAt());
                s.setObject(i++, after.createdAt());
                s.setString(i++, after.id());
            }
            s.setInt(i, batchSize);
            try (ResultSet r = s.executeQuery()) {
                while (r.next()) {
                    read++;
                    last = new Cursor(r.getObject(2, OffsetDateTime.class), r.getString(1));
                    if (r.getInt(3) == 0) {
                        free.add(r.getString(1));
                    }
                }
            }
        }
        int deleted = 0;
        if (!free.isEmpty()) {
            try (PreparedStatement s = c.prepareStatement(DELETE)) {
                Array ids = c.createArrayOf("VARCHAR", free.toArray());
                s.setArray(1, ids);
                deleted = s.executeUpdate();
            }
        }
        return Step.of(deleted, read, batchSize, last);
    }
}
