package dev.retrysafe.liveevents.internal;

import dev.retrysafe.common.Transactions;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The count of each account's open streams that every instance on one PostgreSQL database shares:
 * a row of {@code stream_leases} per open stream, with an expiry. A stream is admitted in one
 * transaction that takes the account's advisory lock (so admissions of one account take turns, on
 * every instance, without this module knowing the application's tables), deletes the account's expired leases, counts the others and inserts its own. The
 * instance renews all its leases with one {@code UPDATE} per heartbeat (every third of the lease)
 * and deletes a stream's lease when it closes, so a killed instance's streams stop counting once
 * their leases ran out. A lease that ran out and was deleted while its instance could not renew it
 * (cut off from the database for a whole lease) is reported lost at the next renewal: its stream
 * no longer has a place and is closed. Expiries are wall-clock times from the injected clock.
 * Threadsafe.
 */
final class ConnectionLeases implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ConnectionLeases.class);

    /**
     * The account's turn: a transaction-scoped advisory lock in a key space of its own (the first
     * key), on the hash of the account id. Two accounts whose ids hash alike only take turns.
     */
    private static final String LOCK_ACCOUNT = "SELECT pg_advisory_xact_lock(1381192532, hashtext(?))";

    private static final String DROP_EXPIRED = "DELETE FROM stream_leases WHERE account_id = ? AND expires_at <= ?";
    private static final String COUNT = "SELECT COUNT(*) FROM stream_leases WHERE account_id = ?";
    private static final String INSERT =
            "INSERT INTO stream_leases (instance_id, connection_id, account_id, expires_at) VALUES (?, ?, ?, ?)";
    private static final String RENEW =
            "UPDATE stream_leases SET expires_at = ? WHERE instance_id = ? RETURNING connection_id";
    private static final String DELETE = "DELETE FROM stream_leases WHERE instance_id = ? AND connection_id = ?";
    private static final String DELETE_ALL = "DELETE FROM stream_leases WHERE instance_id = ?";

    private final Transactions transactions;
    private final String instance;
    private final int maxPerAccount;
    private final Duration lease;
    private final Clock clock;
    /** The connections whose lease this instance holds (committed), by connection id. */
    private final Set<String> held = ConcurrentHashMap.newKeySet();
    /** Closed connections whose lease could not be deleted: the next heartbeat deletes them before it renews. */
    private final Set<String> undeleted = ConcurrentHashMap.newKeySet();

    private final SparseWarning warning = new SparseWarning(LOG);
    private final ScheduledExecutorService heartbeats = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "retrysafe-stream-leases");
        t.setDaemon(true);
        return t;
    });
    private volatile Consumer<String> lost = id -> {};
    /** Closed: every lease of the instance is deleted, and the pool may be gone. */
    private volatile boolean closed;

    /**
     * The leases of the instance named {@code instance} (unique among the instances), at most
     * {@code maxPerAccount} per account, each lasting {@code lease} past its last renewal by {@code clock}.
     */
    ConnectionLeases(DataSource pool, String instance, int maxPerAccount, Duration lease, Clock clock) {
        // a failure is caught where it happens below: an unchecked one serves as well as the SQLException
        this.transactions = new Transactions(pool, LeaseFailure::new);
        this.instance = instance;
        this.maxPerAccount = maxPerAccount;
        this.lease = lease;
        this.clock = clock;
    }

    /** {@code onLost} hears the id of each connection whose lease a heartbeat found gone. */
    void onLost(Consumer<String> onLost) {
        this.lost = onLost;
    }

    /** Starts the heartbeat, every third of the lease. */
    void start() {
        long period = Math.max(1, lease.toMillis() / 3);
        heartbeats.scheduleWithFixedDelay(this::heartbeat, period, period, TimeUnit.MILLISECONDS);
    }

    /** Takes a place in {@code accountId}'s count for connection {@code connectionId}, if one is free. */
    Admissions.Decision admit(String accountId, String connectionId) {
        long now = clock.millis();
        try {
            boolean admitted = transactions.transaction("admit a stream", c -> {
                run(c, LOCK_ACCOUNT, accountId);
                run(c, DROP_EXPIRED, accountId, now);
                if (count(c, accountId) >= maxPerAccount) {
                    return false;
                }
                run(c, INSERT, instance, connectionId, accountId, now + lease.toMillis());
                return true;
            });
            if (!admitted) {
                return Admissions.Decision.FULL;
            }
            held.add(connectionId);
            return Admissions.Decision.ADMITTED;
        } catch (RuntimeException e) {
            warning.warn("cannot count the streams of an account: {}", e.toString());
            return Admissions.Decision.UNAVAILABLE;
        }
    }

    /** Gives connection {@code connectionId}'s place back (deleted now, or by the next heartbeat). */
    void release(String connectionId) {
        if (!held.remove(connectionId) || closed) {
            return; // never admitted, or its lease was lost; or close() deleted every lease
        }
        try {
            transactions.transaction("delete a stream's lease", c -> run(c, DELETE, instance, connectionId));
        } catch (RuntimeException e) {
            undeleted.add(connectionId); // must not be renewed: the heartbeat deletes it first
            warning.warn("cannot delete the lease of a closed stream (the next heartbeat will): {}", e.toString());
        }
    }

    /**
     * Deletes the leases of closed connections that could not be deleted before and renews the
     * others, in one transaction; then reports every lease that was held before and is gone.
     */
    void heartbeat() {
        Set<String> before = Set.copyOf(held); // committed before the renewal starts: it must see them
        List<String> deleting = List.copyOf(undeleted);
        if (before.isEmpty() && deleting.isEmpty()) {
            // no stream here: no query (a lease committed just before its held entry is renewed by
            // the next beat, a third of a lease later)
            return;
        }
        Set<String> renewed = new HashSet<>();
        try {
            transactions.transaction("renew the leases", c -> {
                for (String id : deleting) {
                    run(c, DELETE, instance, id);
                }
                try (PreparedStatement s = c.prepareStatement(RENEW)) {
                    s.setLong(1, clock.millis() + lease.toMillis());
                    s.setString(2, instance);
                    try (ResultSet r = s.executeQuery()) {
                        while (r.next()) {
                            renewed.add(r.getString(1));
                        }
                    }
                }
                return null;
            });
        } catch (RuntimeException e) {
            warning.warn("cannot renew the leases of this instance's streams: {}", e.toString());
            return;
        }
        deleting.forEach(undeleted::remove);
        for (String id : before) {
            if (!renewed.contains(id) && held.remove(id)) {
                try {
                    lost.accept(id);
                } catch (RuntimeException e) {
                    // a failure here must not end the heartbeat, which a scheduled task's exception would
                    LOG.warn("stream {} lost its place and could not be closed: {}", id, e.toString());
                }
            }
        }
    }

    /** Stops the heartbeat and deletes whatever lease of this instance is left. */
    @Override
    public void close() {
        closed = true;
        heartbeats.shutdownNow();
        try {
            heartbeats.awaitTermination(5, TimeUnit.SECONDS);
            transactions.transaction("delete the leases", c -> run(c, DELETE_ALL, instance));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            LOG.warn(
                    "cannot delete the leases of this instance's streams (they expire within {}): {}",
                    lease,
                    e.toString());
        }
    }

    private static int run(Connection c, String sql, Object... params) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(sql)) {
            for (int i = 0; i < params.length; i++) {
                s.setObject(i + 1, params[i]);
            }
            s.execute(); // the account's lock is a SELECT: only the lock is of use
            return s.getUpdateCount();
        }
    }

    private static long count(Connection c, String accountId) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(COUNT)) {
            s.setString(1, accountId);
            try (ResultSet r = s.executeQuery()) {
                r.next();
                return r.getLong(1);
            }
        }
    }

    /** A statement of the leases failed (caught and logged where it happens). */
    private static final class LeaseFailure extends RuntimeException {
        @java.io.Serial
        private static final long serialVersionUID = 1L;

        LeaseFailure(String message, SQLException cause) {
            super(message + ": " + cause, cause);
        }
    }
}
