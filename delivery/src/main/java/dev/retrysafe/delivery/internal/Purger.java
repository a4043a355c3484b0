package dev.retrysafe.delivery.internal;

import dev.retrysafe.delivery.DeliveryStoreException;
import dev.retrysafe.leasedwork.internal.Jdbc;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * Deletes attempts and finished deliveries older than a cutoff, one small batch per short
 * transaction, so that the dispatcher's claims and writes never wait long behind it. Several
 * purgers may run at once (instances of one cluster): each batch deletes by primary key what is
 * still there and still finished, so a row deleted twice is simply not found the second time.
 * Threadsafe.
 */
public final class Purger {

    /** Called inside each batch's transaction, before it commits (tests hold a batch open here). */
    @FunctionalInterface
    public interface BatchHook {
        /** The batch has deleted its rows of {@code table} and is about to commit. */
        void beforeCommit(String table) throws InterruptedException;
    }

    /** What one run deleted. */
    public record Counts(long attempts, long deliveries) {}

    private final Jdbc jdbc;
    private final int batchSize;
    private final BatchHook hook;

    /** A purger over {@code dataSource} deleting at most {@code batchSize} rows of a table per transaction. */
    public Purger(DataSource dataSource, int batchSize, BatchHook hook) {
        this.jdbc = new Jdbc(dataSource, DeliveryStoreException::new);
        this.batchSize = batchSize;
        this.hook = hook;
    }

    /**
     * Deletes every attempt started before {@code cutoff} (epoch ms) and every finished delivery
     * created before it, with their attempts, batch by batch until none is left.
     */
    public Counts purge(long cutoff) throws InterruptedException {
        long attempts = 0;
        while (true) {
            int n = jdbc.transaction(
                    "purge old delivery attempts", c -> inBatch("delivery_attempts", deleteOldAttempts(c, cutoff)));
            attempts += n;
            if (n < batchSize) {
                break;
            }
            checkInterrupt();
        }
        long deliveries = 0;
        @Nullable Cursor cursor = null;
        while (true) {
            Cursor from = cursor;
            Batch batch = jdbc.transaction(
                    "purge old deliveries", c -> inBatch("deliveries", deleteOldDeliveries(c, cutoff, from)));
            deliveries += batch.deleted();
            if (batch.next() == null) {
                break;
            }
            cursor = batch.next();
            checkInterrupt();
        }
        return new Counts(attempts, deliveries);
    }

    private <T> T inBatch(String table, T result) throws SQLException {
        try {
            hook.beforeCommit(table);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SQLException("purge interrupted", e);
        }
        return result;
    }

    private static void checkInterrupt() throws InterruptedException {
        if (Thread.currentThread().isInterrupted()) {
            throw new InterruptedException("purge interrupted");
        }
    }

    private int deleteOldAttempts(Connection c, long cutoff) throws SQLException {
        List<String> ids = new ArrayList<>();
        try (PreparedStatement s = c.prepareStatement(RetentionSql.OLD_ATTEMPTS)) {
            s.setLong(1, cutoff);
            s.setInt(2, batchSize);
            try (ResultSet r = s.executeQuery()) {
                while (r.next()) {
                    ids.add(r.getString(1));
                }
            }
        }
        if (ids.isEmpty()) {
            return 0;
        }
        try (PreparedStatement s = c.prepareStatement(RetentionSql.DELETE_ATTEMPTS)) {
            s.setArray(1, c.createArrayOf("VARCHAR", ids.toArray()));
            s.executeUpdate();
        }
        return ids.size(); // what another purger took meanwhile counts as gone all the same
    }

    /** Where a keyset scan of old deliveries goes on. */
    private record Cursor(long createdAt, String id) {}

    /** A batch's deletions and where the next starts (null: the scan is done). */
    private record Batch(int deleted, @Nullable Cursor next) {}

    private Batch deleteOldDeliveries(Connection c, long cutoff, @Nullable Cursor after) throws SQLException {
        List<String> finished = new ArrayList<>();
        int read = 0;
        Cursor last = null;
        try (PreparedStatement s = c.prepareStatement(
                after == null ? RetentionSql.OLD_DELIVERIES_FIRST : RetentionSql.OLD_DELIVERIES_AFTER)) {
            int i = 1;
            s.setLong(i++, cutoff);
            if (after != null) {
                s.setLong(i++, after.createdAt());
                s.setLong(i++, after.createdAt());
                s.setString(i++, after.id());
            }
            s.setInt(i, batchSize);
            try (ResultSet r = s.executeQuery()) {
                while (r.next()) {
                    read++;
                    last = new Cursor(r.getLong(2), r.getString(1));
                    r.getLong(3);
                    if (r.wasNull()) {
                        finished.add(r.getString(1));
                    }
                }
            }
        }
        int deleted = 0;
        if (!finished.isEmpty()) {
            try (PreparedStatement s = c.prepareStatement(RetentionSql.DELETE_DELIVERIES)) {
                Array ids = c.createArrayOf("VARCHAR", finished.toArray());
                s.setArray(1, ids);
                s.setLong(2, cutoff);
                deleted = s.executeUpdate();
            }
        }
        return new Batch(deleted, read < batchSize ? null : last);
    }
}
