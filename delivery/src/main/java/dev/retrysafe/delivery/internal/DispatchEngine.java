package dev.retrysafe.delivery.internal;

import dev.retrysafe.delivery.AttemptResult;
import dev.retrysafe.delivery.AttemptResult.Outcome;
import dev.retrysafe.delivery.DeliveryStatus;
import dev.retrysafe.delivery.DisabledReason;
import dev.retrysafe.delivery.OutboxEvent;
import dev.retrysafe.delivery.QueueDepth;
import dev.retrysafe.webhooks.WebhookSecret;
import dev.retrysafe.webhooks.WebhookSigner;
import java.lang.System.Logger.Level;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * Claims due deliveries and runs their attempts, each on a virtual thread. No database
 * connection is held while an attempt is in flight: a claim is a few short statements on one
 * auto-commit connection (in-flight counts, a keyset scan of due rows, one batch of conditional
 * updates, one read of what was taken), and
 * an attempt's outcome is one short transaction that locks the endpoint row before any delivery
 * row (the order every writer here and in {@link EndpointStore} uses). Threadsafe.
 *
 * <p>Lifecycle: {@link #start()} runs the claim loop on a virtual thread; {@link #close()} stops
 * claiming, gives back claims whose attempt has not begun, lets attempts in flight finish within
 * the shutdown timeout, and leaves any still running to their leases (another instance retries
 * them once the lease runs out).
 */
public final class DispatchEngine implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger("dev.retrysafe.delivery.Dispatcher");
    private static final int MAX_DETAIL_CHARS = 1024;

    private final DispatcherConfig config;
    private final Jdbc jdbc;
    private final AttemptListener listener;
    private final Semaphore slots;
    private final ExecutorService attempts = Executors.newThreadPerTaskExecutor(
            Thread.ofVirtual().name("retrysafe-delivery-attempt-", 0).factory());
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition wake = lock.newCondition();
    private boolean wakeRequested;
    private boolean waitingForSlots;
    private volatile boolean closing;
    private @Nullable Thread loop;

    /** An engine with {@code config}, telling {@code listener} of every stored attempt. */
    public DispatchEngine(DispatcherConfig config, AttemptListener listener) {
        this.config = config;
        this.jdbc = new Jdbc(config.dataSource());
        this.listener = listener;
        this.slots = new Semaphore(config.workers());
    }

    /** Attempts under way in this instance. */
    public int inFlight() {
        return config.workers() - slots.availablePermits();
    }

    /** Starts the claim loop. */
    public void start() {
        lock.lock();
        try {
            if (closing) {
                throw new IllegalStateException("dispatcher " + config.instanceId() + " is closed");
            }
            if (loop != null) {
                throw new IllegalStateException("dispatcher " + config.instanceId() + " is already started");
            }
            loop = Thread.ofVirtual().name("retrysafe-dispatcher-" + config.instanceId()).start(this::runLoop);
        } finally {
            lock.unlock();
        }
    }

    /** Makes the loop claim now instead of at the end of its poll interval (e.g. after a commit). */
    public void wakeUp() {
        lock.lock();
        try {
            wakeRequested = true;
            wake.signalAll();
        } finally {
            lock.unlock();
        }
    }

    private void slotFreed() {
        lock.lock();
        try {
            if (waitingForSlots) {
                wakeRequested = true;
                wake.signalAll();
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Claims one batch of due deliveries (as many as free slots allow) and runs their attempts,
     * returning when all of them are stored. Returns how many attempts were made.
     */
    public int dispatchDue() {
        List<Future<?>> started = claimAndStart();
        for (Future<?> f : started) {
            try {
                f.get();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for attempts", e);
            } catch (java.util.concurrent.ExecutionException e) {
                throw new IllegalStateException("an attempt failed unexpectedly", e.getCause());
            }
        }
        return started.size();
    }

    /** Counts the queue in the database. */
    public QueueDepth queueDepth() {
        long now = config.clock().millis();
        return jdbc.autocommit("count the delivery queue", c -> {
            try (PreparedStatement s = c.prepareStatement(DispatchSql.QUEUE_DEPTH)) {
                s.setLong(1, now);
                s.setLong(2, now);
                try (ResultSet r = s.executeQuery()) {
                    r.next();
                    return new QueueDepth(r.getLong(1), r.getLong(2), r.getLong(3));
                }
            }
        });
    }

    @Override
    public void close() {
        Thread running;
        lock.lock();
        try {
            if (closing) {
                return;
            }
            closing = true;
            wake.signalAll();
            running = loop;
        } finally {
            lock.unlock();
        }
        long deadline = System.nanoTime() + config.shutdownTimeout().toNanos();
        try {
            if (running != null) {
                running.join(Math.max(1, config.shutdownTimeout().toMillis()));
            }
            long left = deadline - System.nanoTime();
            if (!slots.tryAcquire(config.workers(), Math.max(0, left), TimeUnit.NANOSECONDS)) {
                LOG.log(Level.WARNING, "dispatcher {0}: {1} attempts still in flight after {2}; their leases "
                        + "will expire and another instance will retry them", config.instanceId(), inFlight(),
                        config.shutdownTimeout());
                attempts.shutdownNow();
                return;
            }
            slots.release(config.workers());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        attempts.shutdown();
    }

    // --- the loop --------------------------------------------------------------------------

    private void runLoop() {
        while (!closing) {
            int free = slots.availablePermits();
            int asked = Math.min(config.batchSize(), free);
            int claimed = 0;
            if (asked > 0) {
                try {
                    claimed = claimAndStart().size();
                } catch (RuntimeException e) {
                    LOG.log(Level.WARNING, "dispatcher " + config.instanceId() + ": claiming failed; trying again in "
                            + config.pollInterval(), e);
                }
            }
            if (asked == 0 || claimed < asked) {
                // after a claim that took something, more may be due as soon as an attempt ends
                // (slots, or an endpoint's in-flight cap, were the limit): wake on the first end
                awaitWork(asked == 0 || claimed > 0);
            }
        }
    }

    /**
     * Waits for the poll interval, or less when woken: by {@link #wakeUp()}, or, if
     * {@code untilAnAttemptEnds}, by the first attempt that ends.
     */
    private void awaitWork(boolean untilAnAttemptEnds) {
        lock.lock();
        try {
            waitingForSlots = untilAnAttemptEnds;
            long nanos = config.pollInterval().toNanos();
            while (!wakeRequested && !closing && nanos > 0) {
                nanos = wake.awaitNanos(nanos);
            }
            wakeRequested = false;
            waitingForSlots = false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            closing = true;
        } finally {
            lock.unlock();
        }
    }

    private List<Future<?>> claimAndStart() {
        int wanted = Math.min(config.batchSize(), slots.availablePermits());
        if (wanted == 0 || !slots.tryAcquire(wanted)) {
            return List.of();
        }
        List<Claimed> claims;
        try {
            claims = claim(wanted);
        } catch (RuntimeException e) {
            slots.release(wanted);
            throw e;
        }
        slots.release(wanted - claims.size());
        List<Future<?>> started = new ArrayList<>(claims.size());
        for (Claimed claimed : claims) {
            started.add(attempts.submit(() -> {
                try {
                    attempt(claimed);
                } finally {
                    slots.release();
                    slotFreed();
                }
            }));
        }
        return started;
    }

    // --- claim -------------------------------------------------------------------------------

    /** Rows read per chunk of the due scan. */
    private static final int SCAN_CHUNK = 500;
    /** Chunks one claim reads at most: bounds the work when saturated endpoints have huge backlogs. */
    private static final int MAX_SCAN_CHUNKS = 20;

    private List<Claimed> claim(int limit) {
        Instant now = config.clock().instant();
        long nowMillis = now.toEpochMilli();
        long leaseEnd = now.plus(config.lease()).toEpochMilli();
        String token = ResourceIds.leaseToken();
        return jdbc.autocommit("claim due deliveries", c -> {
            List<String> chosen = choose(c, nowMillis, limit);
            if (chosen.isEmpty()) {
                return List.<Claimed>of();
            }
            try (PreparedStatement s = c.prepareStatement(DispatchSql.CLAIM_ONE)) {
                for (String id : chosen) {
                    s.setString(1, config.instanceId());
                    s.setString(2, token);
                    s.setLong(3, leaseEnd);
                    s.setLong(4, leaseEnd);
                    s.setString(5, id);
                    s.setLong(6, nowMillis);
                    s.addBatch();
                }
                s.executeBatch();
            } catch (SQLException e) {
                if (Jdbc.isTransientConflict(e)) {
                    return List.<Claimed>of(); // a lock wait gave up: nothing claimed, try at the next poll
                }
                throw e;
            }
            List<Claimed> out = new ArrayList<>(chosen.size());
            try (PreparedStatement s = c.prepareStatement(DispatchSql.SELECT_CLAIMED)) {
                s.setString(1, token);
                try (ResultSet r = s.executeQuery()) {
                    while (r.next()) {
                        out.add(new Claimed(r.getString("id"), r.getString("endpoint_id"), r.getString("account_id"),
                                r.getBytes("payload"), r.getInt("attempts"),
                                Instant.ofEpochMilli(r.getLong("created_at")), r.getString("url"),
                                r.getString("secret"), r.getString("previous_secret"),
                                Jdbc.millis(r, "previous_secret_expires_at"), token));
                    }
                }
            }
            return out;
        });
    }

    /**
     * Picks up to {@code limit} due deliveries, oldest first, filling each endpoint only up to
     * its cap minus the attempts already in flight to it (all instances); returned in id order.
     */
    private List<String> choose(Connection c, long now, int limit) throws SQLException {
        Map<String, Integer> busy = new HashMap<>();
        try (PreparedStatement s = c.prepareStatement(DispatchSql.IN_FLIGHT_BY_ENDPOINT)) {
            s.setLong(1, now);
            try (ResultSet r = s.executeQuery()) {
                while (r.next()) {
                    busy.put(r.getString(1), r.getInt(2));
                }
            }
        }
        Object[] saturated = busy.entrySet().stream()
                .filter(e -> e.getValue() >= config.maxInFlightPerEndpoint()).map(Map.Entry::getKey).toArray();
        java.sql.Array excluded = c.createArrayOf("VARCHAR", saturated);
        List<String> chosen = new ArrayList<>(limit);
        @Nullable String lastId = null;
        long lastDue = 0;
        for (int chunk = 0; chunk < MAX_SCAN_CHUNKS && chosen.size() < limit; chunk++) {
            int read = 0;
            try (PreparedStatement s = c.prepareStatement(lastId == null ? DispatchSql.DUE_FIRST : DispatchSql.DUE_AFTER)) {
                int i = 1;
                s.setLong(i++, now);
                s.setLong(i++, now);
                s.setArray(i++, excluded);
                if (lastId != null) {
                    s.setLong(i++, lastDue);
                    s.setLong(i++, lastDue);
                    s.setString(i++, lastId);
                }
                s.setInt(i, SCAN_CHUNK);
                try (ResultSet r = s.executeQuery()) {
                    while (r.next()) {
                        read++;
                        lastId = r.getString(1);
                        lastDue = r.getLong(3);
                        String endpoint = r.getString(2);
                        int inFlight = busy.getOrDefault(endpoint, 0);
                        if (inFlight < config.maxInFlightPerEndpoint() && chosen.size() < limit) {
                            busy.put(endpoint, inFlight + 1);
                            chosen.add(lastId);
                        }
                    }
                }
            }
            if (read < SCAN_CHUNK) {
                break;
            }
        }
        chosen.sort(null);
        return chosen;
    }

    private void release(Claimed claimed) {
        try {
            jdbc.autocommit("release delivery " + claimed.id(), c -> {
                try (PreparedStatement s = c.prepareStatement(DispatchSql.RELEASE)) {
                    s.setLong(1, config.clock().millis());
                    s.setString(2, claimed.id());
                    s.setString(3, claimed.leaseToken());
                    return s.executeUpdate();
                }
            });
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "dispatcher " + config.instanceId() + ": could not release delivery "
                    + claimed.id() + "; it is retried when its lease runs out", e);
        }
    }

    // --- attempt -----------------------------------------------------------------------------

    private void attempt(Claimed claimed) {
        if (closing) {
            release(claimed); // claimed but not begun: give it back rather than start during shutdown
            return;
        }
        Instant started = config.clock().instant();
        long startNanos = System.nanoTime();
        AttemptResult result;
        try {
            Map<String, String> headers = signer(claimed, started)
                    .headers(claimed.id(), started.getEpochSecond(), claimed.payload()).toMap();
            result = config.sender().send(URI.create(claimed.url()), headers, claimed.payload());
        } catch (RuntimeException e) {
            // the sender's contract is to report, not throw; a bad stored URL or secret lands here too
            result = new AttemptResult(Outcome.PROTOCOL_ERROR, null, Duration.ofNanos(System.nanoTime() - startNanos),
                    "", null, "attempt could not be made: " + e.getClass().getSimpleName());
        }
        AttemptResult outcome = result;
        try {
            Stored stored = jdbc.transaction("store attempt of delivery " + claimed.id(),
                    c -> store(c, claimed, started, outcome));
            listener.attempted(outcome.outcome(),
                    claimed.attempts() == 0 ? Duration.between(claimed.createdAt(), started) : null,
                    stored.finished(), stored.disabledEndpoint());
        } catch (RuntimeException e) {
            LOG.log(Level.ERROR, "dispatcher " + config.instanceId() + ": attempt of delivery " + claimed.id()
                    + " was made (" + outcome.outcome() + ") but could not be stored; it is retried when its "
                    + "lease runs out", e);
        }
    }

    private WebhookSigner signer(Claimed claimed, Instant now) {
        WebhookSigner.Builder builder = WebhookSigner.builder().secret(WebhookSecret.parse(claimed.secret()));
        if (claimed.previousSecret() != null && claimed.previousSecretExpiresAt() != null
                && now.isBefore(claimed.previousSecretExpiresAt())) {
            builder.secret(WebhookSecret.parse(claimed.previousSecret()));
        }
        return builder.build();
    }

    /** What storing an attempt came to. */
    private record Stored(@Nullable DeliveryStatus finished, boolean disabledEndpoint) {
    }

    private Stored store(Connection c, Claimed claimed, Instant started, AttemptResult result) throws SQLException {
        Instant now = config.clock().instant();
        boolean success = result.succeeded();
        // 1. the endpoint row first: the lock order of every writer
        try (PreparedStatement s = c.prepareStatement(success ? DispatchSql.CLEAR_FAILING : DispatchSql.MARK_FAILING)) {
            int i = 1;
            if (!success) {
                s.setLong(i++, started.toEpochMilli());
            }
            s.setString(i, claimed.endpointId());
            s.executeUpdate();
        }
        Optional<Duration> pause = config.schedule().slowDownFor(result);
        if (pause.isPresent() && !pause.get().isZero()) {
            long until = now.plus(pause.get()).toEpochMilli();
            try (PreparedStatement s = c.prepareStatement(DispatchSql.SLOW_DOWN)) {
                s.setLong(1, until);
                s.setString(2, claimed.endpointId());
                s.setLong(3, until);
                s.executeUpdate();
            }
        }
        EndpointState endpoint = endpointState(c, claimed.endpointId());
        if (endpoint == null) {
            return new Stored(null, false); // deleted meanwhile, with its deliveries
        }
        DisabledReason disable = null;
        if (!success && endpoint.enabled()) {
            if (dev.retrysafe.delivery.RetrySchedule.isGone(result)) {
                disable = DisabledReason.GONE;
            } else if (endpoint.failingSince() != null
                    && !now.isBefore(endpoint.failingSince().plus(config.disableAfter()))) {
                disable = DisabledReason.FAILING;
            }
        }
        boolean disabledNow = disable != null && EndpointStore.disable(c, claimed.endpointId(), disable, now);
        if (disabledNow) {
            config.eventSink().append(c, disabledEvent(claimed.endpointId(), endpoint, disable, now));
        }
        // 2. the attempt log, 3. the delivery (fenced by the claim's token)
        insertAttempt(c, claimed, started, result);
        DeliveryStatus status;
        Instant next = null;
        if (success) {
            status = DeliveryStatus.SUCCEEDED;
        } else if (!endpoint.enabled() || disable != null) {
            status = DeliveryStatus.FAILED;
        } else {
            Optional<Duration> delay = config.schedule().nextAfter(claimed.attempts() + 1, result, config.random());
            status = delay.isPresent() ? DeliveryStatus.PENDING : DeliveryStatus.FAILED;
            next = delay.map(now::plus).orElse(null);
        }
        int updated;
        try (PreparedStatement s = c.prepareStatement(DispatchSql.FINISH_ATTEMPT)) {
            s.setString(1, status.wireName());
            Jdbc.setMillis(s, 2, next);
            s.setLong(3, started.toEpochMilli());
            s.setString(4, result.outcome().name());
            Jdbc.setInteger(s, 5, result.status());
            s.setString(6, claimed.id());
            s.setString(7, claimed.leaseToken());
            updated = s.executeUpdate();
        }
        if (updated == 0) {
            LOG.log(Level.WARNING, "dispatcher {0}: the lease on delivery {1} ran out during its attempt; "
                    + "the attempt is logged, the delivery is left to its new holder", config.instanceId(), claimed.id());
            return new Stored(null, disabledNow);
        }
        return new Stored(status == DeliveryStatus.PENDING ? null : status, disabledNow);
    }

    private void insertAttempt(Connection c, Claimed claimed, Instant started, AttemptResult result) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(DispatchSql.INSERT_ATTEMPT)) {
            s.setString(1, ResourceIds.next(ResourceIds.ATTEMPT, started));
            s.setInt(2, claimed.attempts() + 1);
            s.setLong(3, started.toEpochMilli());
            s.setString(4, result.outcome().name());
            Jdbc.setInteger(s, 5, result.status());
            s.setLong(6, Math.max(0, result.latency().toMillis()));
            s.setString(7, truncate(result.snippet()));
            s.setString(8, truncate(result.detail()));
            s.setString(9, claimed.id());
            s.executeUpdate();
        }
    }

    private record EndpointState(String accountId, String url, boolean enabled, @Nullable Instant failingSince) {
    }

    private static @Nullable EndpointState endpointState(Connection c, String endpointId) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(DispatchSql.SELECT_ENDPOINT_STATE)) {
            s.setString(1, endpointId);
            try (ResultSet r = s.executeQuery()) {
                return r.next() ? new EndpointState(r.getString("account_id"), r.getString("url"),
                        r.getBoolean("enabled"), Jdbc.millis(r, "failing_since")) : null;
            }
        }
    }

    /**
     * The {@code webhook_endpoint.disabled} event: {@code {id, type, timestamp, data}} like every
     * event, {@code data} describing the endpoint (never its secret).
     */
    private static OutboxEvent disabledEvent(String endpointId, EndpointState endpoint, DisabledReason reason,
            Instant now) {
        String id = ResourceIds.next(ResourceIds.EVENT, now);
        String type = "webhook_endpoint.disabled";
        String json = "{\"id\":" + JsonText.string(id)
                + ",\"type\":" + JsonText.string(type)
                + ",\"timestamp\":" + JsonText.string(now.toString())
                + ",\"data\":{\"object\":\"webhook_endpoint\""
                + ",\"id\":" + JsonText.string(endpointId)
                + ",\"url\":" + JsonText.string(endpoint.url())
                + ",\"enabled\":false"
                + ",\"disabled_reason\":" + JsonText.string(reason.wireName())
                + ",\"failing_since\":" + (endpoint.failingSince() == null ? "null"
                        : JsonText.string(endpoint.failingSince().toString()))
                + "}}";
        return new OutboxEvent(id, endpoint.accountId(), type, now, json.getBytes(StandardCharsets.UTF_8));
    }

    private static String truncate(String s) {
        return s.length() <= MAX_DETAIL_CHARS ? s : s.substring(0, MAX_DETAIL_CHARS);
    }
}
