package dev.retrysafe.delivery;

import dev.retrysafe.delivery.internal.DispatchWork;
import dev.retrysafe.delivery.internal.DispatcherConfig;
import dev.retrysafe.delivery.internal.ResourceIds;
import dev.retrysafe.leasedwork.internal.Checks;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.Random;
import java.util.random.RandomGenerator;
import javax.sql.DataSource;

/**
 * Sends the deliveries the {@link Outbox} made. Every instance of an application runs one over
 * the same database; they share the work through leased claims, with no leader:
 * <ul>
 *   <li><b>Claims.</b> A claim reads the due deliveries (oldest first) and takes each with a
 *       conditional update that stamps this instance's lease (default 30 s) only if the delivery
 *       is still due, so of two instances that chose the same delivery exactly one gets it, and no
 *       two instances send the same attempt. If an instance dies, its claims are due again when
 *       their leases run out and any instance takes them over. The lease must outlast the
 *       sender's timeout (5 s by default), or a slow attempt could be repeated while it runs.</li>
 *   <li><b>Attempts.</b> Each runs on its own virtual thread, holding no database connection:
 *       signed afresh (a new {@code webhook-timestamp} each time; {@code webhook-id} is the
 *       delivery id, the same for every attempt; both secrets while a rotation's grace period
 *       runs), sent by the {@link AttemptSender}, then stored in one transaction: the attempt log,
 *       the delivery's next state per the {@link RetrySchedule}, the endpoint's failing streak.
 *       Successes that finish while another is being stored share a transaction (at most 64 in
 *       one commit), the way a database groups commits: under load most of the cost of storing
 *       an attempt is its commit. A failure keeps a transaction of its own.</li>
 *   <li><b>Isolation.</b> At most {@code maxInFlightPerEndpoint} attempts (default 10) go to one
 *       endpoint at once, counted over the live claims of all instances when claiming. Concurrent
 *       claims by two instances can exceed it briefly (best effort across instances, exact within
 *       one). An endpoint at its cap is skipped by the claim, so deliveries to other endpoints keep
 *       flowing while it hangs, as long as {@code workers} (default 1000) exceeds the number of
 *       endpoints that can hang at once times the cap. Overloaded endpoints ({@code 429}, {@code 502},
 *       {@code 503}, {@code 504}, timeouts) are paused as {@link RetrySchedule} describes.</li>
 *   <li><b>Rate.</b> An endpoint with a rate limit of {@code r} attempts per second
 *       ({@link WebhookEndpoint#rateLimit()}) gets its attempts at slots at least
 *       {@code ceil(1 s / r)} apart, with no burst after idle time, so no half-open second holds
 *       more than {@code r} slots. The slots are one schedule in the endpoint's row
 *       ({@code rate_next_slot_ns}, the next free slot), which a claim moves forward with a
 *       compare-and-set before it claims the deliveries: of two instances that read the same
 *       schedule, one reserves and the other claims none of that endpoint's deliveries this
 *       time, so the rate holds across instances, not only within one. A claim reserves the free
 *       slots up to {@code rateLookahead} ahead (default 1 s); each attempt waits on its virtual
 *       thread, holding no connection, until its slot, and never starts before it. What is not
 *       exact: slots are wall-clock times, so instances whose clocks differ by {@code d} can
 *       start two attempts up to {@code d} closer than the spacing (keep clocks synchronised); an
 *       attempt that starts late (a busy machine) can end up closer to the next one; and a slot
 *       reserved for a delivery that another instance then claimed stays unused (the rate is
 *       undershot, never exceeded). An endpoint without a free slot is left out of the claim's
 *       scan like one at its in-flight cap, so it never delays deliveries to other endpoints;
 *       deliveries waiting for their slot count as in flight.</li>
 *   <li><b>Disabling.</b> An endpoint whose attempts have all failed for {@code disableAfter}
 *       (default 5 days), or that answered {@code 410 Gone}, is disabled, its waiting deliveries
 *       fail, and a {@code webhook_endpoint.disabled} event goes to the {@link EventSink} (default:
 *       the outbox, so the account's other subscribed endpoints hear of it).</li>
 * </ul>
 * Delivery is at least once: an attempt whose outcome cannot be stored (database down, lease
 * lost) is made again; receivers de-duplicate by {@code webhook-id}. No order is promised.
 *
 * <p>{@link #start()} runs the claim loop in the background; tests drive {@link #dispatchDue()}
 * instead, which runs one claim and its attempts synchronously. {@link #close()} is graceful. The
 * sender belongs to the caller, who closes it after the dispatcher. This class is threadsafe.
 *
 * <pre>{@code
 * Dispatcher dispatcher = Dispatcher.builder(dataSource, sender).instanceId("api-1").build();
 * dispatcher.start();
 * ...
 * dispatcher.close();
 * }</pre>
 */
public final class Dispatcher implements AutoCloseable {

    /** Default claim lease. */
    public static final Duration DEFAULT_LEASE = Duration.ofSeconds(30);
    /** Default most deliveries per claim. */
    public static final int DEFAULT_BATCH_SIZE = 100;
    /** Default most attempts in flight in one instance. */
    public static final int DEFAULT_WORKERS = 1000;
    /** Default wait between claims when nothing is due. */
    public static final Duration DEFAULT_POLL_INTERVAL = Duration.ofMillis(100);
    /** Default most attempts in flight to one endpoint. */
    public static final int DEFAULT_MAX_IN_FLIGHT_PER_ENDPOINT = 10;
    /** Default failing time after which an endpoint is disabled. */
    public static final Duration DEFAULT_DISABLE_AFTER = Duration.ofDays(5);
    /** Default time {@link #close()} lets attempts in flight finish. */
    public static final Duration DEFAULT_SHUTDOWN_TIMEOUT = Duration.ofSeconds(10);
    /** Default look-ahead of rate slot reservations. */
    public static final Duration DEFAULT_RATE_LOOKAHEAD = Duration.ofSeconds(1);

    private final DispatchWork engine;
    private final DeliveryMetrics metrics;
    private final String instanceId;

    private Dispatcher(DispatcherConfig config) {
        DispatchWork[] holder = new DispatchWork[1];
        this.metrics = new DeliveryMetrics(() -> holder[0] == null ? 0 : holder[0].inFlight());
        this.engine = new DispatchWork(config, metrics::record);
        holder[0] = engine;
        this.instanceId = config.instanceId();
    }

    /** A builder of a dispatcher over {@code dataSource} that sends with {@code sender}. */
    public static Builder builder(DataSource dataSource, AttemptSender sender) {
        return new Builder(dataSource, sender);
    }

    /**
     * Starts claiming in the background (one platform thread for the loop, one virtual thread per attempt).
     *
     * @throws IllegalStateException if started before or closed
     */
    public void start() {
        engine.start();
    }

    /**
     * Claims one batch of due deliveries and makes their attempts, returning once every outcome
     * is stored: the loop's step, run synchronously, for tests with a fake clock and for tools.
     * Attempts to rate-limited endpoints wait for their slots first (at most the rate
     * look-ahead; with a look-ahead of 0 nothing waits).
     *
     * @return how many attempts were made (0 if nothing was due)
     */
    public int dispatchDue() {
        return engine.dispatchDue();
    }

    /** Makes the background loop claim now rather than at its next poll (call it after a commit). */
    public void wakeUp() {
        engine.wakeUp();
    }

    /** This instance's counters. */
    public DeliveryMetrics metrics() {
        return metrics;
    }

    /** The queue as it stands in the database (all instances, all accounts); one query. */
    public QueueDepth queueDepth() {
        return engine.queueDepth();
    }

    /** The name this instance's claims carry. */
    public String instanceId() {
        return instanceId;
    }

    /**
     * Stops gracefully: claims no more, gives back claimed deliveries whose attempt has not begun
     * (due at once, for any instance), and waits up to the shutdown timeout for attempts in flight
     * to be stored. Attempts still running then are abandoned to their leases and retried by
     * another instance (or this one after a restart). Idempotent.
     */
    @Override
    public void close() {
        engine.close();
    }

    /** Builds a {@link Dispatcher}. Not threadsafe; the built dispatcher's settings never change. */
    public static final class Builder {
        private final DataSource dataSource;
        private final AttemptSender sender;
        private Clock clock = Clock.systemUTC();
        private RetrySchedule schedule = RetrySchedule.defaults();
        private Duration lease = DEFAULT_LEASE;
        private int batchSize = DEFAULT_BATCH_SIZE;
        private int workers = DEFAULT_WORKERS;
        private Duration pollInterval = DEFAULT_POLL_INTERVAL;
        private int maxInFlightPerEndpoint = DEFAULT_MAX_IN_FLIGHT_PER_ENDPOINT;
        private Duration disableAfter = DEFAULT_DISABLE_AFTER;
        private Duration shutdownTimeout = DEFAULT_SHUTDOWN_TIMEOUT;
        private String instanceId = "dispatcher-" + ResourceIds.leaseToken().substring(0, 8);
        private RandomGenerator random = new Random();
        private EventSink eventSink = Outbox.create();
        private Duration rateLookahead = DEFAULT_RATE_LOOKAHEAD;
        private AttemptObserver attemptObserver = attempt -> {};

        private Builder(DataSource dataSource, AttemptSender sender) {
            this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
            this.sender = Objects.requireNonNull(sender, "sender");
        }

        /** The wall clock for leases, due times and signatures (default: system UTC). */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /** The retry schedule and slow-down rules (default {@link RetrySchedule#defaults()}). */
        public Builder schedule(RetrySchedule schedule) {
            this.schedule = Objects.requireNonNull(schedule, "schedule");
            return this;
        }

        /** How long a claim lasts, 1 s to 1 h (default 30 s); must exceed the sender's timeout. */
        public Builder lease(Duration lease) {
            this.lease = Checks.range("lease", lease, Duration.ofSeconds(1), Duration.ofHours(1));
            return this;
        }

        /** Most deliveries one claim takes, 1 to 10000 (default 100). */
        public Builder batchSize(int batchSize) {
            this.batchSize = Checks.range("batchSize", batchSize, 1, 10_000);
            return this;
        }

        /** Most attempts in flight in this instance, 1 to 100000 (default 1000; virtual threads). */
        public Builder workers(int workers) {
            this.workers = Checks.range("workers", workers, 1, 100_000);
            return this;
        }

        /** The wait between claims when nothing is due, 1 ms to 10 min (default 100 ms). */
        public Builder pollInterval(Duration pollInterval) {
            this.pollInterval =
                    Checks.range("pollInterval", pollInterval, Duration.ofMillis(1), Duration.ofMinutes(10));
            return this;
        }

        /** Most attempts in flight to one endpoint, 1 to 10000 (default 10). */
        public Builder maxInFlightPerEndpoint(int maxInFlightPerEndpoint) {
            this.maxInFlightPerEndpoint = Checks.range("maxInFlightPerEndpoint", maxInFlightPerEndpoint, 1, 10_000);
            return this;
        }

        /** How long an endpoint may fail every attempt before it is disabled, 1 min to 365 d (default 5 d). */
        public Builder disableAfter(Duration disableAfter) {
            this.disableAfter = Checks.range("disableAfter", disableAfter, Duration.ofMinutes(1), Duration.ofDays(365));
            return this;
        }

        /** How long {@link #close()} lets attempts in flight finish, 0 to 1 h (default 10 s). */
        public Builder shutdownTimeout(Duration shutdownTimeout) {
            this.shutdownTimeout = Checks.range("shutdownTimeout", shutdownTimeout, Duration.ZERO, Duration.ofHours(1));
            return this;
        }

        /** The name this instance's claims carry, 1 to 128 characters (default random). */
        public Builder instanceId(String instanceId) {
            this.instanceId = Objects.requireNonNull(instanceId, "instanceId");
            return this;
        }

        /** The jitter source, shared by the attempts, so threadsafe (default {@link Random}). */
        public Builder random(RandomGenerator random) {
            this.random = Objects.requireNonNull(random, "random");
            return this;
        }

        /** Where {@code webhook_endpoint.disabled} events go (default {@link Outbox#create()}). */
        public Builder eventSink(EventSink eventSink) {
            this.eventSink = Objects.requireNonNull(eventSink, "eventSink");
            return this;
        }

        /**
         * How far ahead one claim reserves the rate slots of a rate-limited endpoint, 0 to 10 s and
         * shorter than the lease (default 1 s). Longer lets one claim take more of a slow
         * endpoint's slots (its attempts then wait for them); 0 takes only the slot that is free
         * now, one attempt per endpoint per claim, which suits tests with a fake clock
         * ({@link #dispatchDue()} then never waits).
         */
        public Builder rateLookahead(Duration rateLookahead) {
            this.rateLookahead =
                    Checks.range("rateLookahead", rateLookahead, Duration.ZERO, DispatcherConfig.MAX_RATE_LOOKAHEAD);
            return this;
        }

        /**
         * Told of every attempt this dispatcher makes, once its outcome is committed (default:
         * nobody).
         */
        public Builder attemptObserver(AttemptObserver attemptObserver) {
            this.attemptObserver = Objects.requireNonNull(attemptObserver, "attemptObserver");
            return this;
        }

        /**
         * The dispatcher, not started.
         *
         * @throws IllegalArgumentException if the rate look-ahead is not shorter than the lease
         */
        public Dispatcher build() {
            return new Dispatcher(new DispatcherConfig(
                    dataSource,
                    sender,
                    clock,
                    schedule,
                    lease,
                    batchSize,
                    workers,
                    pollInterval,
                    maxInFlightPerEndpoint,
                    disableAfter,
                    shutdownTimeout,
                    instanceId,
                    random,
                    eventSink,
                    rateLookahead,
                    attemptObserver));
        }
    }
}
