package dev.retrysafe.delivery.internal;

import dev.retrysafe.common.JsonStrings;
import dev.retrysafe.delivery.AttemptResult;
import dev.retrysafe.delivery.AttemptResult.Outcome;
import dev.retrysafe.delivery.DeliveryAttempt;
import dev.retrysafe.delivery.DeliveryStatus;
import dev.retrysafe.delivery.DisabledReason;
import dev.retrysafe.delivery.EventSink;
import dev.retrysafe.delivery.OutboxEvent;
import dev.retrysafe.delivery.QueueDepth;
import dev.retrysafe.delivery.StoredAttempt;
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
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
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
 * connection is held while an attempt is in flight or waits for its rate slot: a claim is a few
 * short statements on one auto-commit connection (in-flight counts, a keyset scan of due rows,
 * the rate slots of rate-limited endpoints as compare-and-sets, one batch of conditional updates,
 * one read of what was taken), and an attempt's outcome is one short transaction that locks the
 * endpoint row before any delivery row (the order every writer here and in {@link EndpointStore}
 * uses); successes that finish together share one ({@link SuccessStore}). Threadsafe.
 *
 * <p>Lifecycle: {@link #start()} runs the claim loop on a (daemon) platform thread; {@link #close()} stops
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
    private final SuccessStore successes;
    private final ExecutorService attempts = Executors.newThreadPerTaskExecutor(
            Thread.ofVirtual().name("retrysafe-delivery-attempt-", 0).factory());
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition wake = lock.newCondition();
    private boolean wakeRequested;
    private boolean waitingForSlots;
    private volatile boolean closing;
    /** Released when closing starts: attempts waiting for their rate slot give their claim back. */
    private final CountDownLatch closed = new CountDownLatch(1);
    private @Nullable Thread loop;

    /** An engine with {@code config}, telling {@code listener} of every stored attempt. */
    public DispatchEngine(DispatcherConfig config, AttemptListener listener) {
        this.config = config;
        this.jdbc = new Jdbc(config.dataSource());
        this.listener = listener;
        this.slots = new Semaphore(config.workers());
        this.successes = new SuccessStore(jdbc, config.instanceId());
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
            // a platform thread: the loop does little but JDBC round trips, and a virtual thread
            // blocked on a socket parks, goes through the JDK's I/O poller and is woken again,
            // thread switches a platform thread blocked in the read does not make
            loop = Thread.ofPlatform().daemon().name("retrysafe-dispatcher-" + config.instanceId()).start(this::runLoop);
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
        List<Future<?>> started = claimAndStart().attempts();
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
            closed.countDown();
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
                successes.close();
                return;
            }
            slots.release(config.workers());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        attempts.shutdown();
        successes.close();
    }

    // --- the loop --------------------------------------------------------------------------

    private void runLoop() {
        while (!closing) {
            int free = slots.availablePermits();
            int asked = Math.min(config.batchSize(), free);
            int claimed = 0;
            boolean heldBack = false;
            if (asked > 0) {
                try {
                    Started started = claimAndStart();
                    claimed = started.attempts().size();
                    heldBack = started.heldBack();
                } catch (RuntimeException e) {
                    LOG.log(Level.WARNING, "dispatcher " + config.instanceId() + ": claiming failed; trying again in "
                            + config.pollInterval(), e);
                }
            }
            if (asked == 0 || claimed < asked) {
                // when slots or endpoints' in-flight caps held due deliveries back, more can be
                // taken as soon as an attempt ends: wake on the first end. Otherwise nothing due
                // was left, and only a commit (wakeUp) or time brings more: claiming after every
                // attempt would only cost the database a query that finds nothing
                awaitWork(asked == 0 || heldBack);
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
            closed.countDown();
        } finally {
            lock.unlock();
        }
    }

    /** The attempts one claim started, and whether due deliveries were left for their caps or slots. */
    private record Started(List<Future<?>> attempts, boolean heldBack) {
    }

    private Started claimAndStart() {
        int wanted = Math.min(config.batchSize(), slots.availablePermits());
        if (wanted == 0 || !slots.tryAcquire(wanted)) {
            return new Started(List.of(), true);
        }
        Claims result;
        try {
            result = claim(wanted);
        } catch (RuntimeException e) {
            slots.release(wanted);
            throw e;
        }
        List<Claimed> claims = result.claimed();
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
        return new Started(started, result.heldBack() || claims.size() == wanted);
    }

    // --- claim -------------------------------------------------------------------------------

    /** Most rows read per chunk of the due scan. */
    private static final int SCAN_CHUNK = 500;
    /** Fewest rows read per chunk: a claim with room for a few still reads past a filled endpoint. */
    private static final int MIN_SCAN_CHUNK = 50;
    /** Chunks one claim reads at most: bounds the work when saturated endpoints have huge backlogs. */
    private static final int MAX_SCAN_CHUNKS = 20;

    /** What one claim took, and whether due deliveries were left for caps, rate slots or the limit. */
    private record Claims(List<Claimed> claimed, boolean heldBack) {
    }

    private Claims claim(int limit) {
        Instant now = config.clock().instant();
        long nowMillis = now.toEpochMilli();
        long leaseEnd = now.plus(config.lease()).toEpochMilli();
        String token = ResourceIds.leaseToken();
        return jdbc.autocommit("claim due deliveries", c -> {
            Choice choice = choose(c, now, limit);
            List<String> chosen = reserveRateSlots(c, choice);
            boolean heldBack = choice.heldBack() || chosen.size() < choice.ids().size();
            if (chosen.isEmpty()) {
                return new Claims(List.of(), heldBack);
            }
            List<Claimed> out = "PostgreSQL".equals(c.getMetaData().getDatabaseProductName())
                    ? claimSkippingLocked(c, chosen, token, leaseEnd, nowMillis, choice.slots())
                    : claimOneByOne(c, chosen, token, leaseEnd, nowMillis, choice.slots());
            if (out.size() < chosen.size()) {
                heldBack = true; // taken by another instance meanwhile: more may be due behind them
            }
            return new Claims(out, heldBack);
        });
    }

    /**
     * PostgreSQL: one statement claims the chosen deliveries still due and not held by another
     * transaction, and returns what their attempts need; rows another instance is claiming at
     * this moment are skipped instead of waited for, so two instances that chose the same
     * deliveries never queue behind each other. Answers them in id order.
     */
    private List<Claimed> claimSkippingLocked(Connection c, List<String> chosen, String token, long leaseEnd,
                                              long now, Map<String, Long> slots) throws SQLException {
        List<Claimed> out = new ArrayList<>(chosen.size());
        try (PreparedStatement s = c.prepareStatement(DispatchSql.CLAIM_SKIP_LOCKED)) {
            s.setString(1, config.instanceId());
            s.setString(2, token);
            s.setLong(3, leaseEnd);
            s.setLong(4, leaseEnd);
            s.setArray(5, c.createArrayOf("VARCHAR", chosen.toArray()));
            s.setLong(6, now);
            try (ResultSet r = s.executeQuery()) {
                while (r.next()) {
                    out.add(claimed(r, token, slots));
                }
            }
        }
        out.sort(Comparator.comparing(Claimed::id));
        return out;
    }

    /**
     * Elsewhere (H2): one conditional update per chosen delivery in one batch, in id order (so
     * concurrent batches lock rows in the same order and cannot deadlock), then one read of what
     * this claim's token took, in id order.
     */
    private List<Claimed> claimOneByOne(Connection c, List<String> chosen, String token, long leaseEnd, long now,
                                        Map<String, Long> slots) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(DispatchSql.CLAIM_ONE)) {
            for (String id : chosen) {
                s.setString(1, config.instanceId());
                s.setString(2, token);
                s.setLong(3, leaseEnd);
                s.setLong(4, leaseEnd);
                s.setString(5, id);
                s.setLong(6, now);
                s.addBatch();
            }
            s.executeBatch();
        } catch (SQLException e) {
            if (Jdbc.isTransientConflict(e)) {
                return List.of(); // a lock wait gave up: nothing claimed, try again soon
            }
            throw e;
        }
        List<Claimed> out = new ArrayList<>(chosen.size());
        try (PreparedStatement s = c.prepareStatement(DispatchSql.SELECT_CLAIMED)) {
            s.setString(1, token);
            try (ResultSet r = s.executeQuery()) {
                while (r.next()) {
                    out.add(claimed(r, token, slots));
                }
            }
        }
        return out;
    }

    /** The claimed delivery in the current row of a claim's result, with its rate slot if it has one. */
    private static Claimed claimed(ResultSet r, String token, Map<String, Long> slots) throws SQLException {
        String id = r.getString("id");
        @Nullable Long slot = slots.get(id);
        return new Claimed(id, r.getString("endpoint_id"), r.getString("account_id"), r.getBytes("payload"),
                r.getInt("attempts"), Instant.ofEpochMilli(r.getLong("created_at")), r.getString("url"),
                r.getString("secret"), r.getString("previous_secret"),
                Jdbc.millis(r, "previous_secret_expires_at"), token, slot == null ? null : EpochNanos.toInstant(slot));
    }

    /**
     * What one claim chose: the deliveries, and for endpoints with a rate limit the slots they
     * take (delivery id to epoch ns) and the reservations to make before claiming them.
     */
    private record Choice(List<String> ids, Map<String, Long> slots, List<Reservation> reservations, boolean heldBack) {
    }

    /** Slots of one rate-limited endpoint taken by this claim. */
    private record Reservation(String endpointId, int rate, long readNextFree, long newNextFree, List<String> deliveries) {
    }

    /** One rate-limited endpoint while the claim scans: its window and the deliveries placed in it. */
    private static final class Pace {
        final int rate;
        final @Nullable Long readNextFree;
        final RatePacing.Window window;
        final List<String> deliveries = new ArrayList<>();

        Pace(int rate, @Nullable Long readNextFree, RatePacing.Window window) {
            this.rate = rate;
            this.readNextFree = readNextFree;
            this.window = window;
        }

        boolean full() {
            return deliveries.size() >= window.capacity();
        }
    }

    /** Rows per chunk of the due scan of a claim that may take {@code limit} deliveries. */
    static int scanChunk(int limit) {
        return Math.clamp(limit, MIN_SCAN_CHUNK, SCAN_CHUNK);
    }

    /**
     * Picks up to {@code limit} due deliveries, oldest first, filling each endpoint only up to
     * its cap minus the attempts already in flight to it (all instances), and a rate-limited one
     * only with the free slots of its look-ahead; ids returned in id order. Endpoints already at
     * their cap are left out by the database. The scan reads chunks of about {@code limit} rows
     * ({@link #scanChunk}) and goes on chunk by chunk while chunks yield picks: a chunk that
     * yields none holds only the backlogs of endpoints this claim filled, and reading on
     * (possibly through the whole backlog) would cost more than the next claim, which finds
     * those endpoints at their cap and leaves them out.
     */
    private Choice choose(Connection c, Instant nowInstant, int limit) throws SQLException {
        long now = nowInstant.toEpochMilli();
        long nowNanos = EpochNanos.of(nowInstant);
        long lookahead = config.rateLookahead().toNanos();
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
        boolean heldBack = saturated.length > 0;
        Map<String, Pace> paces = new HashMap<>();
        Map<String, Long> slots = new HashMap<>();
        List<String> chosen = new ArrayList<>(limit);
        // a chunk as large as the claim's limit: a chunk of 500 when 100 may be taken made
        // PostgreSQL walk (and the dispatcher read) five times the rows a claim can use, and
        // PostgreSQL also walks the due rows of the left-out endpoints to find them
        int chunkSize = scanChunk(limit);
        @Nullable String lastId = null;
        long lastDue = 0;
        for (int chunk = 0; chunk < MAX_SCAN_CHUNKS && chosen.size() < limit; chunk++) {
            int read = 0;
            int picked = chosen.size();
            try (PreparedStatement s = c.prepareStatement(lastId == null ? DispatchSql.DUE_FIRST : DispatchSql.DUE_AFTER)) {
                int i = 1;
                s.setLong(i++, now);
                s.setLong(i++, now);
                s.setLong(i++, nowNanos + lookahead);
                s.setArray(i++, excluded);
                if (lastId != null) {
                    s.setLong(i++, lastDue);
                    s.setLong(i++, lastDue);
                    s.setString(i++, lastId);
                }
                s.setInt(i, chunkSize);
                try (ResultSet r = s.executeQuery()) {
                    while (r.next()) {
                        read++;
                        String id = r.getString(1);
                        String endpoint = r.getString(2);
                        lastId = id;
                        lastDue = r.getLong(3);
                        @Nullable Integer rate = Jdbc.integer(r, "rate_limit");
                        long nextFree = r.getLong("rate_next_slot_ns");
                        @Nullable Long readNextFree = r.wasNull() ? null : nextFree;
                        int inFlight = busy.getOrDefault(endpoint, 0);
                        if (inFlight >= config.maxInFlightPerEndpoint() || chosen.size() >= limit) {
                            heldBack = true;
                            continue;
                        }
                        if (rate != null) {
                            Pace pace = paces.computeIfAbsent(endpoint, k -> new Pace(rate, readNextFree,
                                    RatePacing.window(readNextFree, nowNanos, lookahead, rate)));
                            if (pace.full()) {
                                heldBack = true;
                                continue;
                            }
                            slots.put(id, pace.window.slot(pace.deliveries.size()));
                            pace.deliveries.add(id);
                        }
                        busy.put(endpoint, inFlight + 1);
                        chosen.add(id);
                    }
                }
            }
            if (read < chunkSize) {
                break;
            }
            heldBack = true; // rows past this chunk were not read
            if (chosen.size() == picked) {
                break;
            }
        }
        chosen.sort(null);
        List<Reservation> reservations = new ArrayList<>(paces.size());
        paces.forEach((endpoint, pace) -> {
            if (!pace.deliveries.isEmpty()) {
                reservations.add(new Reservation(endpoint, pace.rate,
                        pace.readNextFree == null ? -1 : pace.readNextFree,
                        pace.window.nextFreeAfter(pace.deliveries.size()), List.copyOf(pace.deliveries)));
            }
        });
        reservations.sort(Comparator.comparing(Reservation::endpointId));
        return new Choice(chosen, slots, reservations, heldBack);
    }

    /**
     * Reserves the rate slots of the choice (one compare-and-set per rate-limited endpoint, in
     * endpoint id order, before any delivery is claimed) and answers the deliveries that may be
     * claimed: the choice without those of endpoints whose schedule another instance moved first.
     * A slot reserved for a delivery that is then not claimed (another instance took it) stays
     * unused: the rate can be undershot, never exceeded.
     */
    private List<String> reserveRateSlots(Connection c, Choice choice) throws SQLException {
        if (choice.reservations().isEmpty()) {
            return choice.ids();
        }
        int[] moved;
        try (PreparedStatement s = c.prepareStatement(DispatchSql.RESERVE_RATE_SLOTS)) {
            for (Reservation r : choice.reservations()) {
                s.setLong(1, r.newNextFree());
                s.setString(2, r.endpointId());
                s.setInt(3, r.rate());
                s.setLong(4, r.readNextFree());
                s.addBatch();
            }
            moved = s.executeBatch();
        } catch (SQLException e) {
            if (!Jdbc.isTransientConflict(e)) {
                throw e;
            }
            moved = new int[choice.reservations().size()]; // a lock wait gave up: no slot is ours
        }
        Set<String> lost = new HashSet<>();
        for (int i = 0; i < moved.length; i++) {
            if (moved[i] == 0) {
                lost.addAll(choice.reservations().get(i).deliveries());
            }
        }
        if (lost.isEmpty()) {
            return choice.ids();
        }
        List<String> kept = new ArrayList<>(choice.ids().size());
        for (String id : choice.ids()) {
            if (!lost.contains(id)) {
                kept.add(id);
            }
        }
        return kept;
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
        if (closing || !awaitSlot(claimed)) {
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
        String attemptId = ResourceIds.next(ResourceIds.ATTEMPT, started);
        Stored stored;
        try {
            stored = outcome.succeeded() ? storeSuccess(claimed, attemptId, started, outcome)
                    : jdbc.transaction("store attempt of delivery " + claimed.id(),
                            c -> store(c, claimed, attemptId, started, outcome));
            listener.attempted(outcome.outcome(),
                    claimed.attempts() == 0 ? Duration.between(claimed.createdAt(), started) : null,
                    stored.finished(), stored.disabledEndpoint());
        } catch (RuntimeException | InterruptedException e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            LOG.log(Level.ERROR, "dispatcher " + config.instanceId() + ": attempt of delivery " + claimed.id()
                    + " was made (" + outcome.outcome() + ") but could not be stored; it is retried when its "
                    + "lease runs out", e);
            return;
        }
        observe(claimed, attemptId, started, outcome, stored);
    }

    /** Tells the attempt observer; what it throws is logged, never passed on. */
    private void observe(Claimed claimed, String attemptId, Instant started, AttemptResult result, Stored stored) {
        try {
            DeliveryAttempt attempt = new DeliveryAttempt(attemptId, claimed.id(), claimed.attempts() + 1, started,
                    result.outcome(), result.status(), result.latency().isNegative() ? Duration.ZERO : result.latency(),
                    truncate(result.snippet()), truncate(result.detail()));
            config.attemptObserver().stored(new StoredAttempt(claimed.accountId(), claimed.endpointId(), attempt,
                    stored.status(), stored.disabledEndpoint()));
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "dispatcher " + config.instanceId() + ": the attempt observer failed on delivery "
                    + claimed.id() + "; ignored", e);
        }
    }

    /** A success goes to the batched store: one commit for the successes that finish together. */
    private Stored storeSuccess(Claimed claimed, String attemptId, Instant started, AttemptResult result)
            throws InterruptedException {
        if (successes.store(new SuccessStore.Success(claimed, attemptId, started, result))) {
            return new Stored(DeliveryStatus.SUCCEEDED, false);
        }
        LOG.log(Level.WARNING, "dispatcher {0}: the lease on delivery {1} ran out during its attempt (or the delivery "
                + "was deleted); the attempt is logged if it still exists, the delivery is left to its new holder",
                config.instanceId(), claimed.id());
        return new Stored(null, false);
    }

    /**
     * Waits (holding no connection) until the claimed delivery's rate slot begins; false if the
     * dispatcher began closing meanwhile. The wait is measured once on the wall clock, then
     * kept on the monotonic one: an attempt never starts before its slot, only after it.
     */
    private boolean awaitSlot(Claimed claimed) {
        Instant slot = claimed.slot();
        if (slot == null) {
            return true;
        }
        long wait = Duration.between(config.clock().instant(), slot).toNanos();
        if (wait <= 0) {
            return true;
        }
        try {
            return !closed.await(wait, TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
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

    /**
     * What storing an attempt came to: the delivery's status after it ({@code null}: the claim had
     * run out, or the delivery is gone) and whether it disabled the endpoint.
     */
    private record Stored(@Nullable DeliveryStatus status, boolean disabledEndpoint) {
        /** The status if the attempt finished the delivery, else {@code null}. */
        @Nullable DeliveryStatus finished() {
            return status == DeliveryStatus.PENDING ? null : status;
        }
    }

    private Stored store(Connection c, Claimed claimed, String attemptId, Instant started, AttemptResult result)
            throws SQLException {
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
        insertAttempt(c, claimed, attemptId, started, result);
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
        return new Stored(status, disabledNow);
    }

    private void insertAttempt(Connection c, Claimed claimed, String attemptId, Instant started, AttemptResult result)
            throws SQLException {
        try (PreparedStatement s = c.prepareStatement(DispatchSql.INSERT_ATTEMPT)) {
            bindAttempt(s, claimed, attemptId, started, result);
            s.executeUpdate();
        }
    }

    /** Binds {@link DispatchSql#INSERT_ATTEMPT} for one attempt. */
    static void bindAttempt(PreparedStatement s, Claimed claimed, String attemptId, Instant started,
                            AttemptResult result) throws SQLException {
        s.setString(1, attemptId);
        s.setInt(2, claimed.attempts() + 1);
        s.setLong(3, started.toEpochMilli());
        s.setString(4, result.outcome().name());
        Jdbc.setInteger(s, 5, result.status());
        s.setLong(6, Math.max(0, result.latency().toMillis()));
        s.setString(7, truncate(result.snippet()));
        s.setString(8, truncate(result.detail()));
        s.setString(9, claimed.id());
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
        String type = EventSink.ENDPOINT_DISABLED;
        String json = "{\"id\":" + JsonStrings.document(id)
                + ",\"type\":" + JsonStrings.document(type)
                + ",\"timestamp\":" + JsonStrings.document(now.toString())
                + ",\"data\":{\"object\":\"webhook_endpoint\""
                + ",\"id\":" + JsonStrings.document(endpointId)
                + ",\"url\":" + JsonStrings.document(endpoint.url())
                + ",\"enabled\":false"
                + ",\"disabled_reason\":" + JsonStrings.document(reason.wireName())
                + ",\"failing_since\":" + (endpoint.failingSince() == null ? "null"
                        : JsonStrings.document(endpoint.failingSince().toString()))
                + "}}";
        return new OutboxEvent(id, endpoint.accountId(), type, now, json.getBytes(StandardCharsets.UTF_8));
    }

    private static String truncate(String s) {
        return s.length() <= MAX_DETAIL_CHARS ? s : s.substring(0, MAX_DETAIL_CHARS);
    }
}
