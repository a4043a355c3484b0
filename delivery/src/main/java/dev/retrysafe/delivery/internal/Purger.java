package dev.retrysafe.delivery.internal;

import dev.retrysafe.delivery.DeliveryStoreException;
import dev.retrysafe.leasedwork.BatchedDelete;
import dev.retrysafe.leasedwork.BatchedDelete.Step;
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
 * Deletes attempts and finished deliveries older than a cutoff, then the rows of
 * {@code delivery_ordering_keys} that no delivery uses any more, one small batch per short
 * transaction ({@link BatchedDelete}), so that the dispatcher's claims and writes never wait long
 * behind it. Several purgers may run at once (instances of one cluster): each batch deletes by
 * primary key what is still there and still finished (or unused), so a row deleted twice is
 * simply not found the second time. Threadsafe.
 *
 * <p>A key row goes once no delivery of its (endpoint, key) is left, finished or not: a finished
 * one may still be retried by hand and then takes its place in the key by its number again
 * ({@link KeyOrder}, {@link Holds}), so the row, whose {@code last_seq} numbers the key, must
 * outlive it. Once none is left, nothing compares numbers of that key any more (the head, the
 * next due and the release on resume are all read from the key's deliveries), so a later event of
 * the key makes the row again from 0 and is numbered 1, the head, as a key's first event always
 * is. That holds only if no delivery of the key can appear unseen while the row is deleted: the
 * fan-out numbers a delivery under the row's lock and keeps it until it commits. So a batch first
 * locks the rows that look unused, skipping those a fan-out (or the dispatcher) holds, then, in a
 * new statement whose snapshot under READ COMMITTED sees every delivery committed before those
 * locks were granted, deletes those that are still unused. A fan-out that reaches the row after
 * the lock waits for the delete and makes the row again ({@link KeyOrder#place}). One statement
 * that checked and deleted would not do: PostgreSQL re-checks a row it waited for against the
 * row's new version but the sub-query against the statement's old snapshot, and would delete the
 * row of a key whose first delivery just committed, restarting its numbering under it. (Under
 * REPEATABLE READ, should a data source be set so, locking a row that a fan-out changed after the
 * batch's snapshot fails as a serialization conflict and the batch runs again.)
 */
public final class Purger {

    /** Called inside each batch's transaction, before it commits (tests hold a batch open here). */
    @FunctionalInterface
    public interface BatchHook {
        /** The batch has deleted its rows of {@code table} and is about to commit. */
        void beforeCommit(String table) throws InterruptedException;

        /**
         * A batch of key rows has locked the rows it will delete and not yet deleted them
         * (tests let a fan-out meet the locks here).
         */
        default void keysLocked() throws InterruptedException {}
    }

    /** What one run deleted. */
    public record Counts(long attempts, long deliveries, long orderingKeys) {}

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
     * created before it, with their attempts, then every key row with no delivery left, batch by
     * batch until none is left.
     */
    public Counts purge(long cutoff) throws InterruptedException {
        long attempts = BatchedDelete.<String, RuntimeException>run(
                "purge",
                after -> jdbc.transaction(
                        "purge old delivery attempts",
                        c -> inBatch("delivery_attempts", deleteOldAttempts(c, cutoff))));
        long deliveries = BatchedDelete.<Cursor, RuntimeException>run(
                "purge",
                after -> jdbc.transaction(
                        "purge old deliveries", c -> inBatch("deliveries", deleteOldDeliveries(c, cutoff, after))));
        long keys = BatchedDelete.<Key, RuntimeException>run(
                "purge",
                after -> jdbc.transaction(
                        "purge unused ordering keys",
                        c -> inBatch("delivery_ordering_keys", deleteUnusedKeys(c, after))));
        return new Counts(attempts, deliveries, keys);
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

    /** Deletes the oldest attempts; the next batch starts again from the oldest left (its cursor is unused). */
    private Step<String> deleteOldAttempts(Connection c, long cutoff) throws SQLException {
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
            return new Step<>(0, null);
        }
        try (PreparedStatement s = c.prepareStatement(RetentionSql.DELETE_ATTEMPTS)) {
            s.setArray(1, c.createArrayOf("VARCHAR", ids.toArray()));
            s.executeUpdate();
        }
        // what another purger took meanwhile counts as gone all the same
        return Step.of(ids.size(), ids.size(), batchSize, ids.getLast());
    }

    /** Where a keyset scan of old deliveries goes on. */
    private record Cursor(long createdAt, String id) {}

    private Step<Cursor> deleteOldDeliveries(Connection c, long cutoff, @Nullable Cursor after) throws SQLException {
        List<String> finished = new ArrayList<>();
        int read = 0;
        @Nullable Cursor last = null;
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
        return Step.of(deleted, read, batchSize, last);
    }

    /** A row of {@code delivery_ordering_keys} by its primary key; where a keyset scan of them goes on. */
    private record Key(String endpointId, String orderingKey) {}

    /**
     * One chunk of key rows by primary key: locks those with no delivery left (skipping rows
     * others hold), then deletes those of them that still have none (see the class).
     */
    private Step<Key> deleteUnusedKeys(Connection c, @Nullable Key after) throws SQLException {
        List<Key> unused = new ArrayList<>();
        int read = 0;
        @Nullable Key last = null;
        try (PreparedStatement s =
                c.prepareStatement(after == null ? RetentionSql.KEYS_FIRST : RetentionSql.KEYS_AFTER)) {
            int i = 1;
            if (after != null) {
                s.setString(i++, after.endpointId());
                s.setString(i++, after.orderingKey());
            }
            s.setInt(i, batchSize);
            try (ResultSet r = s.executeQuery()) {
                while (r.next()) {
                    read++;
                    last = new Key(r.getString(1), r.getString(2));
                    if (r.getInt(3) == 0) {
                        unused.add(last);
                    }
                }
            }
        }
        List<Key> locked = new ArrayList<>();
        if (!unused.isEmpty()) {
            try (PreparedStatement s = c.prepareStatement(Jdbc.forUpdateSkipLocked(RetentionSql.KEYS_BY_ID))) {
                bindKeys(c, s, unused);
                try (ResultSet r = s.executeQuery()) {
                    while (r.next()) {
                        locked.add(new Key(r.getString(1), r.getString(2)));
                    }
                }
            }
        }
        try {
            hook.keysLocked();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SQLException("purge interrupted", e);
        }
        int deleted = 0;
        if (!locked.isEmpty()) {
            // a new statement: it sees the deliveries of fan-outs that committed before our locks
            try (PreparedStatement s = c.prepareStatement(RetentionSql.DELETE_UNUSED_KEYS)) {
                bindKeys(c, s, locked);
                deleted = s.executeUpdate();
            }
        }
        return Step.of(deleted, read, batchSize, last);
    }

    /** Binds {@code keys} as the two arrays of {@link RetentionSql#KEYS_BY_ID}. */
    private static void bindKeys(Connection c, PreparedStatement s, List<Key> keys) throws SQLException {
        s.setArray(
                1, c.createArrayOf("VARCHAR", keys.stream().map(Key::endpointId).toArray()));
        s.setArray(
                2,
                c.createArrayOf("VARCHAR", keys.stream().map(Key::orderingKey).toArray()));
    }
}
