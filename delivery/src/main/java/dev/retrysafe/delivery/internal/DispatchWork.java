package dev.retrysafe.delivery.internal;

import dev.retrysafe.common.MonotonicClock;
import dev.retrysafe.delivery.AttemptResult;
import dev.retrysafe.delivery.AttemptResult.Outcome;
import dev.retrysafe.delivery.DeliveryAttempt;
import dev.retrysafe.delivery.DeliveryStatus;
import dev.retrysafe.delivery.DeliveryStoreException;
import dev.retrysafe.delivery.QueueDepth;
import dev.retrysafe.delivery.StoredAttempt;
import dev.retrysafe.leasedwork.internal.Jdbc;
import dev.retrysafe.leasedwork.internal.LeasedWork;
import dev.retrysafe.leasedwork.internal.LoopSettings;
import dev.retrysafe.leasedwork.internal.Rows;
import dev.retrysafe.leasedwork.internal.WorkLoop;
import dev.retrysafe.webhooks.WebhookSecret;
import dev.retrysafe.webhooks.WebhookSigner;
import java.lang.System.Logger.Level;
import java.net.URI;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * The dispatcher's leased work, run by the engine's {@link WorkLoop}: claims due deliveries and
 * makes their attempts, each on a virtual thread. No database connection is held while an
 * attempt is in flight or waits for its rate slot: a claim is a few short statements on one
 * auto-commit connection (in-flight counts, a keyset scan of due rows and the rate slots of
 * rate-limited endpoints, {@link DueScan}; one batch of conditional updates or one update that
 * skips locked rows, and one read of what was taken), and an attempt's outcome is one short
 * transaction ({@link AttemptStore}); successes that finish together share one
 * ({@link SuccessStore}). Claims that commits or ended attempts bring are at least
 * {@link #CLAIM_GAP} apart, so that under load one claim serves many deliveries. Threadsafe.
 *
 * <p>Lifecycle: {@link #start()} runs the claim loop on a (daemon) platform thread; {@link #close()} stops
 * claiming, gives back claims whose attempt has not begun, lets attempts in flight finish within
 * the shutdown timeout, and leaves any still running to their leases (another instance retries
 * them once the lease runs out).
 */
public final class DispatchWork implements LeasedWork<Claimed>, AutoCloseable {

    private static final System.Logger LOG = System.getLogger("dev.retrysafe.delivery.Dispatcher");

    /**
     * The least time between two claims that commits or ended attempts bring. A claim costs the
     * database the same few statements whether it takes one delivery or a hundred: without a gap,
     * a stream of commits (each waking the loop) made one claim per one or two deliveries. It adds
     * at most this much to the time from commit to first attempt.
     */
    static final Duration CLAIM_GAP = Duration.ofMillis(5);

    private final DispatcherConfig config;
    private final Jdbc jdbc;
    private final AttemptListener listener;
    private final DueScan scan;
    private final ClaimRoute route = new ClaimRoute();
    private final AttemptStore attempts;
    private final SuccessStore successes;
    private final WorkLoop<Claimed> loop;
    /** Signers by the secrets they sign with (see {@link #signer}). */
    private final ConcurrentHashMap<Secrets, WebhookSigner> signers = new ConcurrentHashMap<>();

    /** Most signers kept; past this the cache starts over. */
    private static final int MAX_SIGNERS = 10_000;

    /** An engine with {@code config}, telling {@code listener} of every stored attempt. */
    public DispatchWork(DispatcherConfig config, AttemptListener listener) {
        this.config = config;
        this.jdbc = new Jdbc(config.dataSource(), DeliveryStoreException::new);
        this.listener = listener;
        this.scan = new DueScan(config);
        this.attempts = new AttemptStore(config);
        this.successes = new SuccessStore(jdbc, config.instanceId());
        // a platform thread for the loop: it does little but JDBC round trips, and a virtual thread
        // blocked on a socket parks, goes through the JDK's I/O poller and is woken again, thread
        // switches a platform thread blocked in the read does not make
        this.loop = new WorkLoop<>(
                new LoopSettings(
                        "dispatcher " + config.instanceId(),
                        LOG,
                        config.workers(),
                        config.batchSize(),
                        WorkLoop.Rhythm.BATCHES,
                        config.pollInterval(),
                        config.shutdownTimeout(),
                        Thread.ofPlatform()
                                .daemon()
                                .name("retrysafe-dispatcher-" + config.instanceId())
                                .factory(),
                        Thread.ofVirtual()
                                .name("retrysafe-delivery-attempt-", 0)
                                .factory(),
                        List.of(),
                        CLAIM_GAP),
                this);
    }

    /** Attempts under way in this instance. */
    public int inFlight() {
        return loop.inFlight();
    }

    /** Starts the claim loop. */
    public void start() {
        loop.start();
    }

    /** Makes the loop claim now instead of at the end of its poll interval (e.g. after a commit). */
    public void wakeUp() {
        loop.wakeUp();
    }

    /**
     * Claims one batch of due deliveries (as many as free slots allow) and runs their attempts,
     * returning when all of them are stored. Returns how many attempts were made.
     */
    public int dispatchDue() {
        return loop.runDue();
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
        loop.close();
    }

    // --- the engine's questions --------------------------------------------------------------

    /**
     * Claims up to {@code room} due deliveries: chooses them ({@link DueScan}), reserves their
     * rate slots, then takes their leases; those another instance took meanwhile are left out.
     */
    @Override
    public Claims<Claimed> claim(int room) {
        Instant now = config.clock().instant();
        long nowMillis = now.toEpochMilli();
        long leaseEnd = now.plus(config.lease()).toEpochMilli();
        String token = ResourceIds.leaseToken();
        return jdbc.autocommit("claim due deliveries", c -> {
            if (route.byEndpoint(c)) {
                return claimByEndpoint(c, nowMillis, room, token, leaseEnd);
            }
            DueScan.Choice choice = scan.choose(c, now, room);
            List<String> chosen = scan.reserveRateSlots(c, choice);
            boolean heldBack = choice.heldBack() || chosen.size() < choice.ids().size();
            if (chosen.isEmpty()) {
                return new Claims<>(List.of(), heldBack);
            }
            List<Claimed> out = new ArrayList<>(DispatchSql.LEASES.claimChosen(
                    c,
                    chosen,
                    config.instanceId(),
                    token,
                    leaseEnd,
                    nowMillis,
                    DispatchSql.READBACK,
                    r -> claimed(r, token, choice.slots())));
            out.sort(Comparator.comparing(Claimed::id));
            if (out.size() < chosen.size()) {
                heldBack = true; // taken by another instance meanwhile: more may be due behind them
            }
            return new Claims<>(out, heldBack);
        });
    }

    /** The claim in one statement ({@link ClaimRoute}, {@link DispatchSql#CLAIM_BY_ENDPOINT}). */
    private Claims<Claimed> claimByEndpoint(Connection c, long now, int room, String token, long leaseEnd)
            throws SQLException {
        int cap = config.maxInFlightPerEndpoint();
        List<Claimed> out = new ArrayList<>(room);
        boolean heldBack = false;
        long picked = 0;
        try (PreparedStatement s = c.prepareStatement(DispatchSql.CLAIM_BY_ENDPOINT_PLANNED)) {
            DispatchSql.bindClaimByEndpoint(s, now, cap, room, config.instanceId(), token, leaseEnd);
            s.execute(); // the settings
            if (!s.getMoreResults()) {
                throw new SQLException("the claim returned no rows");
            }
            try (ResultSet r = s.getResultSet()) {
                while (r.next()) {
                    heldBack = r.getBoolean("held_back");
                    picked = r.getLong("picked");
                    if (r.getString("id") != null) {
                        out.add(claimed(r, token, Map.of()));
                    }
                }
            }
        }
        out.sort(Comparator.comparing(Claimed::id));
        // fewer taken than picked: another instance took some meanwhile, more may be due behind them
        return new Claims<>(out, heldBack || out.size() < picked);
    }

    @Override
    public void run(Claimed claimed) {
        attempt(claimed);
    }

    /** The shutdown timeout passed: attempts still running are interrupted and left to their leases. */
    @Override
    public void abandon(List<WorkLoop.Worker<Claimed>> stillRunning) {
        LOG.log(
                Level.WARNING,
                "dispatcher {0}: {1} attempts still in flight after {2}; their leases "
                        + "will expire and another instance will retry them",
                config.instanceId(),
                stillRunning.size(),
                config.shutdownTimeout());
        stillRunning.forEach(WorkLoop.Worker::interrupt);
    }

    @Override
    public void closed() {
        successes.close();
    }

    /** The claimed delivery in the current row of a claim's result, with its rate slot if it has one. */
    private static Claimed claimed(ResultSet r, String token, Map<String, Long> slots) throws SQLException {
        String id = r.getString("id");
        @Nullable Long slot = slots.get(id);
        return new Claimed(
                id,
                r.getString("endpoint_id"),
                r.getString("account_id"),
                r.getBytes("payload"),
                r.getInt("attempts"),
                Instant.ofEpochMilli(r.getLong("created_at")),
                r.getString("url"),
                r.getString("secret"),
                r.getString("previous_secret"),
                Rows.millis(r, "previous_secret_expires_at"),
                token,
                slot == null ? null : EpochNanos.toInstant(slot),
                r.getObject("ordering_seq") == null ? null : r.getString("ordering_key"),
                r.getString("traceparent"),
                r.getString("custom_headers"));
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
            LOG.log(
                    Level.WARNING,
                    "dispatcher " + config.instanceId() + ": could not release delivery " + claimed.id()
                            + "; it is retried when its lease runs out",
                    e);
        }
    }

    // --- attempt -----------------------------------------------------------------------------

    private void attempt(Claimed claimed) {
        if (loop.isClosing() || !awaitSlot(claimed)) {
            release(claimed); // claimed but not begun: give it back rather than start during shutdown
            return;
        }
        Instant started = config.clock().instant();
        long startNanos = MonotonicClock.nanoTime();
        AttemptResult result;
        try {
            Map<String, String> headers = withTraceAndCustomHeaders(
                    claimed,
                    signer(claimed, started)
                            .headers(claimed.id(), started.getEpochSecond(), claimed.payload())
                            .toMap());
            result = config.sender().send(URI.create(claimed.url()), headers, claimed.payload());
        } catch (RuntimeException e) {
            // the sender's contract is to report, not throw; a bad stored URL or secret lands here too
            result = new AttemptResult(
                    Outcome.PROTOCOL_ERROR,
                    null,
                    Duration.ofNanos(MonotonicClock.nanoTime() - startNanos),
                    "",
                    null,
                    "attempt could not be made: " + e.getClass().getSimpleName());
        }
        AttemptResult outcome = result;
        String attemptId = ResourceIds.next(ResourceIds.ATTEMPT, started);
        AttemptStore.Stored stored;
        try {
            stored = outcome.succeeded()
                    ? storeSuccess(claimed, attemptId, started, outcome)
                    : jdbc.transaction(
                            "store attempt of delivery " + claimed.id(),
                            c -> attempts.store(c, claimed, attemptId, started, outcome));
            listener.attempted(
                    outcome.outcome(),
                    claimed.attempts() == 0 ? Duration.between(claimed.createdAt(), started) : null,
                    stored.finished(),
                    stored.disabledEndpoint());
        } catch (RuntimeException | InterruptedException e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            LOG.log(
                    Level.ERROR,
                    "dispatcher " + config.instanceId() + ": attempt of delivery " + claimed.id()
                            + " was made (" + outcome.outcome() + ") but could not be stored; it is retried when its "
                            + "lease runs out",
                    e);
            return;
        }
        observe(claimed, attemptId, started, outcome, stored);
    }

    /**
     * The signature headers with the delivery's {@code traceparent} and the endpoint's custom
     * headers (whose names never clash with the others: {@link CustomHeaders} refuses those).
     */
    private static Map<String, String> withTraceAndCustomHeaders(Claimed claimed, Map<String, String> signature) {
        if (claimed.traceparent() == null && claimed.customHeaders() == null) {
            return signature;
        }
        Map<String, String> headers = new LinkedHashMap<>(CustomHeaders.decode(claimed.customHeaders()));
        if (claimed.traceparent() != null) {
            headers.put("traceparent", claimed.traceparent());
        }
        headers.putAll(signature);
        return headers;
    }

    /** Tells the attempt observer; what it throws is logged, never passed on. */
    private void observe(
            Claimed claimed, String attemptId, Instant started, AttemptResult result, AttemptStore.Stored stored) {
        try {
            DeliveryAttempt attempt = new DeliveryAttempt(
                    attemptId,
                    claimed.id(),
                    claimed.attempts() + 1,
                    started,
                    result.outcome(),
                    result.status(),
                    result.latency().isNegative() ? Duration.ZERO : result.latency(),
                    AttemptStore.truncate(result.snippet()),
                    AttemptStore.truncate(result.detail()));
            config.attemptObserver()
                    .stored(new StoredAttempt(
                            claimed.accountId(),
                            claimed.endpointId(),
                            attempt,
                            stored.status(),
                            stored.disabledEndpoint()));
        } catch (RuntimeException e) {
            LOG.log(
                    Level.WARNING,
                    "dispatcher " + config.instanceId() + ": the attempt observer failed on delivery " + claimed.id()
                            + "; ignored",
                    e);
        }
    }

    /** A success goes to the batched store: one commit for the successes that finish together. */
    private AttemptStore.Stored storeSuccess(Claimed claimed, String attemptId, Instant started, AttemptResult result)
            throws InterruptedException {
        if (successes.store(new SuccessStore.Success(claimed, attemptId, started, result))) {
            return new AttemptStore.Stored(DeliveryStatus.SUCCEEDED, false);
        }
        LOG.log(
                Level.WARNING,
                "dispatcher {0}: the lease on delivery {1} ran out during its attempt (or the delivery "
                        + "was deleted); the attempt is logged if it still exists, the delivery is left to its new holder",
                config.instanceId(),
                claimed.id());
        return new AttemptStore.Stored(null, false);
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
        return loop.sleepUnlessClosing(wait);
    }

    /**
     * The signer of the claimed delivery's secrets (the previous one too while it is valid),
     * built once per set of secrets: a signer parses its secrets and keys an HMAC, which every
     * attempt did again before. Keyed by the secrets themselves, so a rotated secret is a new
     * entry and never signs with the old key; the cache is emptied when it grows past
     * {@link #MAX_SIGNERS} (secrets of deleted or rotated endpoints are not kept for long).
     */
    private WebhookSigner signer(Claimed claimed, Instant now) {
        @Nullable
        String previous = claimed.previousSecret() != null
                        && claimed.previousSecretExpiresAt() != null
                        && now.isBefore(claimed.previousSecretExpiresAt())
                ? claimed.previousSecret()
                : null;
        Secrets key = new Secrets(claimed.secret(), previous);
        WebhookSigner signer = signers.get(key);
        if (signer == null) {
            WebhookSigner.Builder builder = WebhookSigner.builder().secret(WebhookSecret.parse(key.current()));
            if (previous != null) {
                builder.secret(WebhookSecret.parse(previous));
            }
            signer = builder.build();
            if (signers.size() >= MAX_SIGNERS) {
                signers.clear();
            }
            signers.put(key, signer);
        }
        return signer;
    }

    /** The secrets one signer signs with. Holds secrets: never logged (toString leaves them out). */
    private record Secrets(String current, @Nullable String previous) {
        @Override
        public String toString() {
            return "Secrets[" + (previous == null ? 1 : 2) + "]";
        }
    }
}
