package dev.retrysafe.delivery.internal;

import dev.retrysafe.delivery.AttemptResult;
import dev.retrysafe.delivery.DeliveryStatus;
import dev.retrysafe.delivery.DeliveryStoreException;
import dev.retrysafe.leasedwork.internal.Jdbc;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * Stores successful attempts in batches, the way a database groups commits: a writer takes
 * every success waiting (at most {@link #MAX_BATCH}) and stores them in one transaction of three
 * steps (end the endpoints' failing streaks, log the attempts, finish the deliveries) and one
 * commit: on PostgreSQL one statement per step for the whole batch (its rows passed as arrays),
 * elsewhere (H2) one JDBC batch per step. Under light load a success is stored alone, at once; under heavy
 * load one commit serves many, which is what lets the dispatcher keep up (a commit costs
 * PostgreSQL far more than the rows it writes). A success needs nothing else: it never slows
 * down, disables or reschedules anything, so the endpoint state the single-attempt path reads
 * is not needed.
 *
 * <p>Lock order, as everywhere: the endpoint rows first (in id order, and only those with a
 * failing streak to end), then the delivery rows (in id order, each fenced by its claim's lease
 * token). If a batch cannot be stored, each of its successes is tried alone, so one bad row does
 * not keep the others from being stored. Failures do not come here: their bookkeeping stays one
 * transaction per attempt. Threadsafe.
 */
final class SuccessStore implements AutoCloseable {

    /** Most successes stored in one transaction. */
    static final int MAX_BATCH = 64;
    /** Writers at once: while one commits, the next batch gathers. */
    private static final int WRITERS = 2;

    /** One successful attempt to store, {@code attemptId} naming it in the attempt log. */
    record Success(Claimed claimed, String attemptId, Instant started, AttemptResult result) {}

    private record Pending(Success success, CompletableFuture<Boolean> stored) {}

    private final Jdbc jdbc;
    private final String instanceId;
    private final LinkedBlockingQueue<Pending> queue = new LinkedBlockingQueue<>();
    private final ReentrantLock lock = new ReentrantLock();
    private final List<Thread> writers = new ArrayList<>(WRITERS);
    private boolean closed;

    SuccessStore(Jdbc jdbc, String instanceId) {
        this.jdbc = jdbc;
        this.instanceId = instanceId;
    }

    /**
     * Stores {@code success} and returns once it is committed: true if the delivery was still
     * claimed by this attempt (it is now succeeded), false if its lease had run out and another
     * holder has it, or it was deleted.
     *
     * @throws DeliveryStoreException if it could not be stored
     * @throws InterruptedException   if interrupted while waiting (it may still be stored)
     */
    boolean store(Success success) throws InterruptedException {
        Pending pending = new Pending(success, new CompletableFuture<>());
        lock.lock();
        try {
            if (closed) {
                throw new DeliveryStoreException(
                        "the dispatcher " + instanceId + " is closed", new SQLException("closed"));
            }
            while (writers.size() < WRITERS) {
                // platform threads, like the claim loop: a writer does nothing but JDBC round trips
                writers.add(Thread.ofPlatform()
                        .daemon()
                        .name("retrysafe-delivery-store-" + instanceId + "-" + writers.size())
                        .start(this::write));
            }
            queue.add(pending);
        } finally {
            lock.unlock();
        }
        try {
            return pending.stored().get();
        } catch (ExecutionException e) {
            throw e.getCause() instanceof DeliveryStoreException d
                    ? d
                    : new DeliveryStoreException("storing a successful attempt failed", e.getCause());
        }
    }

    /** Successes waiting for a writer (for tests). */
    int waiting() {
        return queue.size();
    }

    /** Stops the writers; successes not yet written are left to their leases. */
    @Override
    public void close() {
        lock.lock();
        try {
            closed = true;
            writers.forEach(Thread::interrupt);
        } finally {
            lock.unlock();
        }
    }

    private void write() {
        List<Pending> batch = new ArrayList<>(MAX_BATCH);
        while (true) {
            batch.clear();
            try {
                batch.add(queue.take());
            } catch (InterruptedException e) {
                return;
            }
            queue.drainTo(batch, MAX_BATCH - 1);
            writeBatch(batch);
        }
    }

    private void writeBatch(List<Pending> batch) {
        batch.sort(
                Comparator.<Pending, String>comparing(p -> p.success().claimed().endpointId())
                        .thenComparing(p -> p.success().claimed().id()));
        try {
            int[] finished = jdbc.transaction("store " + batch.size() + " successful attempts", c -> store(c, batch));
            for (int i = 0; i < batch.size(); i++) {
                batch.get(i).stored().complete(finished[i] != 0);
            }
        } catch (RuntimeException e) {
            if (batch.size() == 1) {
                batch.getFirst().stored().completeExceptionally(e);
                return;
            }
            for (Pending p : batch) {
                writeBatch(new ArrayList<>(List.of(p)));
            }
        }
    }

    /** The three statements; answers, per success, the rows its delivery update changed. */
    private static int[] store(Connection c, List<Pending> batch) throws SQLException {
        if (Jdbc.isPostgres(c)) {
            return storeEach(c, batch);
        }
        try (PreparedStatement s = c.prepareStatement(DispatchSql.CLEAR_FAILING)) {
            @Nullable String last = null;
            for (Pending p : batch) {
                String endpoint = p.success().claimed().endpointId();
                if (!endpoint.equals(last)) {
                    s.setString(1, endpoint);
                    s.addBatch();
                    last = endpoint;
                }
            }
            s.executeBatch();
        }
        try (PreparedStatement s = c.prepareStatement(DispatchSql.INSERT_ATTEMPT)) {
            for (Pending p : batch) {
                AttemptStore.bindAttempt(
                        s,
                        p.success().claimed(),
                        p.success().attemptId(),
                        p.success().started(),
                        p.success().result());
                s.addBatch();
            }
            s.executeBatch();
        }
        try (PreparedStatement s = c.prepareStatement(DispatchSql.FINISH_ATTEMPT)) {
            for (Pending p : batch) {
                Success success = p.success();
                s.setString(1, DeliveryStatus.SUCCEEDED.wireName());
                Jdbc.setMillis(s, 2, null);
                s.setLong(3, success.started().toEpochMilli());
                s.setString(4, success.result().outcome().name());
                Jdbc.setInteger(s, 5, success.result().status());
                s.setString(6, success.claimed().id());
                s.setString(7, success.claimed().leaseToken());
                s.addBatch();
            }
            int[] counts = s.executeBatch();
            for (int i = 0; i < counts.length; i++) {
                if (counts[i] == Statement.SUCCESS_NO_INFO) {
                    counts[i] = 1; // a driver that does not count: no way to tell a lost lease
                }
            }
            nextOfKeys(c, batch, counts);
            return counts;
        }
    }

    /** The successes of ordered keys make the next of each key due ({@link KeyOrder}), in key order. */
    private static void nextOfKeys(Connection c, List<Pending> batch, int[] counts) throws SQLException {
        List<Success> ordered = new ArrayList<>();
        for (int i = 0; i < batch.size(); i++) {
            Success success = batch.get(i).success();
            if (counts[i] != 0 && success.claimed().orderingKey() != null) {
                ordered.add(success);
            }
        }
        ordered.sort(Comparator.<Success, String>comparing(k -> k.claimed().endpointId())
                .thenComparing(k -> String.valueOf(k.claimed().orderingKey())));
        for (Success success : ordered) {
            Claimed claimed = success.claimed();
            // due from the finished attempt's start (the dispatcher's clock): at once
            KeyOrder.finished(c, claimed.endpointId(), String.valueOf(claimed.orderingKey()), success.started());
        }
    }

    /**
     * PostgreSQL: the same three steps, one statement each for the whole batch (arrays unnested
     * by the database), in the same lock order; answers 1 for each success whose delivery was
     * finished (its claim still held it), 0 for the others.
     */
    private static int[] storeEach(Connection c, List<Pending> batch) throws SQLException {
        int n = batch.size();
        List<String> endpoints = new ArrayList<>();
        String[] ids = new String[n];
        String[] tokens = new String[n];
        String[] attemptIds = new String[n];
        Integer[] numbers = new Integer[n];
        Long[] starts = new Long[n];
        String[] outcomes = new String[n];
        @Nullable Integer[] statuses = new Integer[n];
        Long[] latencies = new Long[n];
        String[] snippets = new String[n];
        String[] details = new String[n];
        for (int i = 0; i < n; i++) {
            Success success = batch.get(i).success();
            Claimed claimed = success.claimed();
            if (endpoints.isEmpty() || !endpoints.getLast().equals(claimed.endpointId())) {
                endpoints.add(claimed.endpointId()); // the batch is sorted by endpoint
            }
            ids[i] = claimed.id();
            tokens[i] = claimed.leaseToken();
            attemptIds[i] = success.attemptId();
            numbers[i] = claimed.attempts() + 1;
            starts[i] = success.started().toEpochMilli();
            outcomes[i] = success.result().outcome().name();
            statuses[i] = success.result().status();
            latencies[i] = Math.max(0, success.result().latency().toMillis());
            snippets[i] = AttemptStore.truncate(success.result().snippet());
            details[i] = AttemptStore.truncate(success.result().detail());
        }
        try (PreparedStatement s = c.prepareStatement(DispatchSql.CLEAR_FAILING_EACH)) {
            s.setArray(1, c.createArrayOf("varchar", endpoints.toArray()));
            s.executeUpdate();
        }
        try (PreparedStatement s = c.prepareStatement(DispatchSql.INSERT_ATTEMPT_EACH)) {
            s.setArray(1, c.createArrayOf("varchar", attemptIds));
            s.setArray(2, c.createArrayOf("varchar", ids));
            s.setArray(3, c.createArrayOf("int4", numbers));
            s.setArray(4, c.createArrayOf("int8", starts));
            s.setArray(5, c.createArrayOf("varchar", outcomes));
            s.setArray(6, c.createArrayOf("int4", statuses));
            s.setArray(7, c.createArrayOf("int8", latencies));
            s.setArray(8, c.createArrayOf("varchar", snippets));
            s.setArray(9, c.createArrayOf("varchar", details));
            s.executeUpdate();
        }
        Set<String> finished = new HashSet<>();
        try (PreparedStatement s = c.prepareStatement(DispatchSql.FINISH_SUCCESS_EACH)) {
            s.setArray(1, c.createArrayOf("varchar", ids));
            s.setArray(2, c.createArrayOf("varchar", tokens));
            s.setArray(3, c.createArrayOf("int8", starts));
            s.setArray(4, c.createArrayOf("varchar", outcomes));
            s.setArray(5, c.createArrayOf("int4", statuses));
            try (ResultSet r = s.executeQuery()) {
                while (r.next()) {
                    finished.add(r.getString(1) + " " + r.getString(2));
                }
            }
        }
        int[] counts = new int[n];
        for (int i = 0; i < n; i++) {
            counts[i] = finished.contains(ids[i] + " " + tokens[i]) ? 1 : 0;
        }
        nextOfKeys(c, batch, counts);
        return counts;
    }
}
