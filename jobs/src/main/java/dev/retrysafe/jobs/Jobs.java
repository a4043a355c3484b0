package dev.retrysafe.jobs;

import dev.retrysafe.jobs.internal.JobEngine;
import dev.retrysafe.jobs.internal.JobIds;
import dev.retrysafe.jobs.internal.JobQueue;
import dev.retrysafe.jobs.internal.JobsConfig;
import dev.retrysafe.leasedwork.internal.Checks;
import java.io.IOException;
import java.io.OutputStream;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ThreadFactory;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * Durable asynchronous jobs over one database shared by any number of instances, with no leader.
 * <ul>
 *   <li><b>Claims.</b> A worker of any instance that has a handler for a job's kind claims it with
 *       a lease (default 30 s), which a heartbeat extends every third of the lease while the
 *       handler runs. A running job whose lease ran out lost its worker (crash, hang, partition):
 *       any instance takes it over and runs it again, {@code maxAttempts} claims in all (default 3),
 *       after which it fails with the problem {@code worker-lost}. Every write of a worker names its
 *       claim, so a worker whose claim was taken over records nothing: a job ends exactly once.</li>
 *   <li><b>Limits.</b> Each kind has a concurrency limit that holds across all instances: claims
 *       of a kind lock one row, then count the kind's running jobs. An instance runs at most
 *       {@code workers} jobs (default 4).</li>
 *   <li><b>Outcomes.</b> See {@link JobHandler}. The {@link JobListener} is told of each final
 *       state inside the transaction that records it.</li>
 *   <li><b>Cancel.</b> A queued job is canceled at once; a running one is asked to stop and does
 *       at its next {@link JobContext#checkpoint() checkpoint}; a handler that returns first keeps
 *       its result.</li>
 *   <li><b>Retention.</b> A result can be downloaded for {@code resultRetention} (default 24 h)
 *       after the job finished; {@link #purgeExpired()} then deletes its bytes, and deletes the
 *       records of jobs finished more than {@code recordRetention} ago (default 30 days, never
 *       before their result expired).</li>
 * </ul>
 * Every stored time comes from the injected clock. {@link #start()} runs the claim loop, the
 * heartbeat and a purge every {@code purgeInterval} in the background; tests drive
 * {@link #runDue()} and {@link #heartbeat()} with a fake clock instead. {@link #close()} is
 * graceful. This class is threadsafe.
 *
 * <pre>{@code
 * Jobs jobs = Jobs.builder(dataSource)
 *         .handler("payments_csv", context -> JobOutput.of("text/csv", csv(context.job().params())), 2)
 *         .build();
 * jobs.start();
 * Job job = jobs.enqueue(new NewJob("acct_1", "payments_csv", "{}"));
 * ...
 * jobs.close();
 * }</pre>
 */
public final class Jobs implements AutoCloseable {

    /** Default claim lease. */
    public static final Duration DEFAULT_LEASE = Duration.ofSeconds(30);
    /** Default claims of a job before losing its worker once more fails it. */
    public static final int DEFAULT_MAX_ATTEMPTS = 3;
    /** Default time a result can be downloaded after its job finished. */
    public static final Duration DEFAULT_RESULT_RETENTION = Duration.ofHours(24);
    /** Default time a finished job's record is kept. */
    public static final Duration DEFAULT_RECORD_RETENTION = Duration.ofDays(30);
    /** Default most jobs one instance runs at once. */
    public static final int DEFAULT_WORKERS = 4;
    /** Default wait between claims when nothing wakes the loop. */
    public static final Duration DEFAULT_POLL_INTERVAL = Duration.ofMillis(200);
    /** Default time {@link #close()} lets running jobs finish. */
    public static final Duration DEFAULT_SHUTDOWN_TIMEOUT = Duration.ofSeconds(10);
    /** Default wait between two purges of the background loop. */
    public static final Duration DEFAULT_PURGE_INTERVAL = Duration.ofMinutes(1);

    /** Largest page of {@link #list}. */
    public static final int MAX_PAGE = 100;

    private final JobEngine engine;
    private final JobQueue queue;
    private final String instanceId;

    private Jobs(JobsConfig config) {
        this.engine = new JobEngine(config);
        this.queue = engine.queue();
        this.instanceId = config.instanceId();
    }

    /** A builder of jobs over {@code dataSource}, whose schema is {@link JobSchema}. */
    public static Builder builder(DataSource dataSource) {
        return new Builder(dataSource);
    }

    /**
     * Enqueues a job in a transaction of its own and wakes this instance's workers.
     *
     * @throws JobStoreException if the database fails
     */
    public Job enqueue(NewJob job) {
        return queue.enqueue(Objects.requireNonNull(job, "job"));
    }

    /**
     * Enqueues a job in the caller's transaction: it exists if and only if that transaction
     * commits. Call {@link #wakeUp()} after the commit so it starts without waiting for a poll.
     */
    public Job enqueue(Connection transaction, NewJob job) throws SQLException {
        return queue.enqueue(Objects.requireNonNull(transaction, "transaction"), Objects.requireNonNull(job, "job"));
    }

    /**
     * The job {@code id} if it belongs to {@code owner}; empty for an unknown id and for another
     * owner's job alike.
     *
     * @throws JobStoreException if the database fails
     */
    public Optional<Job> find(String owner, String id) {
        return queue.find(Objects.requireNonNull(owner, "owner"), Objects.requireNonNull(id, "id"));
    }

    /**
     * A page of the owner's jobs, newest first (by creation time, then id), at most {@code limit}
     * (1 to {@value #MAX_PAGE}); with {@code startingAfter}, the jobs that come after that one of
     * the owner's jobs. Empty if the owner has no job {@code startingAfter} (an unknown id, another
     * owner's job, or one purged since).
     *
     * @throws JobStoreException if the database fails
     */
    public Optional<JobPage> list(String owner, @Nullable String startingAfter, int limit) {
        if (limit < 1 || limit > MAX_PAGE) {
            throw new IllegalArgumentException("limit must be 1 to " + MAX_PAGE + ", was " + limit);
        }
        return queue.list(Objects.requireNonNull(owner, "owner"), startingAfter, limit);
    }

    /**
     * Cancels the owner's job: at once if it is queued (the listener is called), at its next
     * checkpoint if it runs; repeating a cancel gives the same answer.
     *
     * @throws JobStoreException if the database fails (or the listener throws an SQLException)
     */
    public CancelResult cancel(String owner, String id) {
        return queue.cancel(Objects.requireNonNull(owner, "owner"), Objects.requireNonNull(id, "id"));
    }

    /**
     * Whether the owner's job has a result to download. A result counts as expired from
     * {@link Job#resultExpiresAt()} on, by this instance's clock, whether purged yet or not.
     *
     * @throws JobStoreException if the database fails
     */
    public ResultLookup result(String owner, String id) {
        return queue.result(Objects.requireNonNull(owner, "owner"), Objects.requireNonNull(id, "id"));
    }

    /**
     * Streams the owner's result from the database to {@code out} (not closed); false, with
     * nothing written, if it is not {@link ResultLookup.Ready Ready} now.
     *
     * @throws IOException       if writing to {@code out} fails
     * @throws JobStoreException if the database fails
     */
    public boolean writeResult(String owner, String id, OutputStream out) throws IOException {
        return queue.writeResult(
                Objects.requireNonNull(owner, "owner"),
                Objects.requireNonNull(id, "id"),
                Objects.requireNonNull(out, "out"));
    }

    /**
     * Starts the background threads: the claim loop, the heartbeat and the purge.
     *
     * @throws IllegalStateException if started before or closed
     */
    public void start() {
        engine.start();
    }

    /** Makes the claim loop look for jobs now rather than at its next poll (call it after a commit). */
    public void wakeUp() {
        engine.wakeUp();
    }

    /**
     * One claim round, run now: ends jobs out of workers, claims due jobs (as many as free workers
     * and kind limits allow), runs them and waits until their outcomes are recorded. For tests
     * with a fake clock, and tools.
     *
     * @return how many jobs ran
     * @throws IllegalStateException if closed
     */
    public int runDue() {
        return engine.runDue();
    }

    /**
     * Extends the leases of the jobs this instance runs and refreshes their cancel flags now, as
     * the background heartbeat does every third of the lease; a job whose lease was taken over
     * learns it here ({@link JobLeaseLostException} at its next checkpoint).
     *
     * @throws JobStoreException if the database fails
     */
    public void heartbeat() {
        engine.heartbeat();
    }

    /**
     * Deletes the result bytes past their retention (the job records stay and say
     * {@link Job#resultExpired()}) and the records of jobs finished more than
     * {@code recordRetention} ago whose result, if any, expired.
     *
     * @return rows deleted (results and job records)
     * @throws JobStoreException if the database fails
     */
    public int purgeExpired() {
        return queue.purgeExpired();
    }

    /**
     * The queue as stored, over all instances and owners, in one query.
     *
     * @throws JobStoreException if the database fails
     */
    public JobStats stats() {
        return queue.stats();
    }

    /** This instance's counters. */
    public JobMetrics metrics() {
        return engine.metrics();
    }

    /** The name this instance's claims carry. */
    public String instanceId() {
        return instanceId;
    }

    /**
     * Stops gracefully: claims nothing more, lets running jobs finish within the shutdown timeout,
     * then interrupts the others and hands their claims back (queued again, the attempt not
     * counted; canceled if a cancel was requested), so another instance takes them at once, and
     * stops the background threads. Idempotent.
     */
    @Override
    public void close() {
        engine.close();
    }

    /** Builds {@link Jobs}. Not threadsafe; the built instance's settings never change. */
    public static final class Builder {
        private final DataSource dataSource;
        private Clock clock = Clock.systemUTC();
        private @Nullable String instanceId;
        private Duration lease = DEFAULT_LEASE;
        private int maxAttempts = DEFAULT_MAX_ATTEMPTS;
        private Duration resultRetention = DEFAULT_RESULT_RETENTION;
        private Duration recordRetention = DEFAULT_RECORD_RETENTION;
        private int workers = DEFAULT_WORKERS;
        private Duration pollInterval = DEFAULT_POLL_INTERVAL;
        private Duration shutdownTimeout = DEFAULT_SHUTDOWN_TIMEOUT;
        private Duration purgeInterval = DEFAULT_PURGE_INTERVAL;
        private final Map<String, JobsConfig.Registration> handlers = new HashMap<>();
        private JobListener listener = (transaction, job) -> {};
        private JobObserver observer = job -> {};
        private @Nullable ThreadFactory threadFactory;

        private Builder(DataSource dataSource) {
            this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        }

        /** The wall clock for every stored time: leases, finish times, expiry (default system UTC). */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /** The name this instance's claims carry, 1 to 128 characters (default {@code jobs-} and random hex). */
        public Builder instanceId(String instanceId) {
            this.instanceId = Checks.text("instanceId", instanceId, 1, 128);
            return this;
        }

        /**
         * How long a claim lasts without a heartbeat, 1 s to 1 h (default 30 s): how long a job
         * waits after its worker died before another takes it over.
         */
        public Builder lease(Duration lease) {
            this.lease = Checks.range("lease", lease, JobsConfig.MIN_LEASE, JobsConfig.MAX_LEASE);
            return this;
        }

        /**
         * Claims of a job before it fails as {@code worker-lost} when its worker is lost once
         * more, 1 to 100 (default 3); stored with each job enqueued through this instance.
         */
        public Builder maxAttempts(int maxAttempts) {
            this.maxAttempts = Checks.range("maxAttempts", maxAttempts, 1, JobsConfig.MAX_ATTEMPTS);
            return this;
        }

        /** How long a result can be downloaded after its job finished, 1 s to 3650 d (default 24 h). */
        public Builder resultRetention(Duration resultRetention) {
            this.resultRetention =
                    Checks.range("resultRetention", resultRetention, Duration.ofSeconds(1), JobsConfig.MAX_RETENTION);
            return this;
        }

        /**
         * How long a finished job's record is kept, 1 s to 3650 d (default 30 days); a record
         * is never deleted before its result expired.
         */
        public Builder recordRetention(Duration recordRetention) {
            this.recordRetention =
                    Checks.range("recordRetention", recordRetention, Duration.ofSeconds(1), JobsConfig.MAX_RETENTION);
            return this;
        }

        /** Most jobs this instance runs at once, 1 to 10000 (default 4). */
        public Builder workers(int workers) {
            this.workers = Checks.range("workers", workers, 1, JobsConfig.MAX_WORKERS);
            return this;
        }

        /** The wait between claims when nothing wakes the loop, 1 ms to 10 min (default 200 ms). */
        public Builder pollInterval(Duration pollInterval) {
            this.pollInterval =
                    Checks.range("pollInterval", pollInterval, Duration.ofMillis(1), Duration.ofMinutes(10));
            return this;
        }

        /** How long {@link Jobs#close()} lets running jobs finish, 0 to 1 h (default 10 s). */
        public Builder shutdownTimeout(Duration shutdownTimeout) {
            this.shutdownTimeout = Checks.range("shutdownTimeout", shutdownTimeout, Duration.ZERO, Duration.ofHours(1));
            return this;
        }

        /** The wait between two purges of the background loop, 1 s to 1 d (default 1 min). */
        public Builder purgeInterval(Duration purgeInterval) {
            this.purgeInterval =
                    Checks.range("purgeInterval", purgeInterval, Duration.ofSeconds(1), Duration.ofDays(1));
            return this;
        }

        /**
         * Runs the jobs of {@code kind} in this instance. Without a handler for a kind, this
         * instance never claims its jobs (it may still enqueue and read them).
         *
         * @param kind           1 to 64 characters of {@code [a-z0-9_.-]}, once per builder
         * @param handler        runs the jobs
         * @param maxConcurrency most jobs of the kind running at once across all instances, 1 to
         *                       10000 (every instance should give the same limit: a claim applies
         *                       its own instance's)
         */
        public Builder handler(String kind, JobHandler handler, int maxConcurrency) {
            Checks.slug("kind", kind);
            if (handlers.containsKey(kind)) {
                throw new IllegalArgumentException("kind '" + kind + "' has a handler already");
            }
            handlers.put(kind, new JobsConfig.Registration(Objects.requireNonNull(handler, "handler"), maxConcurrency));
            return this;
        }

        /** Told of every job that reaches a final state, inside that transaction (default: nobody). */
        public Builder listener(JobListener listener) {
            this.listener = Objects.requireNonNull(listener, "listener");
            return this;
        }

        /**
         * Told of the changes this instance makes to jobs, after they committed (default:
         * nobody); see {@link JobObserver} for which.
         */
        public Builder observer(JobObserver observer) {
            this.observer = Objects.requireNonNull(observer, "observer");
            return this;
        }

        /**
         * Makes the claim loop, heartbeat, purge and worker threads (default: virtual threads
         * named {@code retrysafe-jobs-<instance>-<n>}). Tests use it to see that every thread ends.
         */
        public Builder threadFactory(ThreadFactory threadFactory) {
            this.threadFactory = Objects.requireNonNull(threadFactory, "threadFactory");
            return this;
        }

        /** The jobs, not started. */
        public Jobs build() {
            String id = instanceId != null
                    ? instanceId
                    : "jobs-" + JobIds.leaseToken().substring(0, 8);
            ThreadFactory threads = threadFactory != null
                    ? threadFactory
                    : Thread.ofVirtual().name("retrysafe-jobs-" + id + "-", 0).factory();
            return new Jobs(new JobsConfig(
                    dataSource,
                    clock,
                    id,
                    lease,
                    maxAttempts,
                    resultRetention,
                    recordRetention,
                    workers,
                    pollInterval,
                    shutdownTimeout,
                    purgeInterval,
                    handlers,
                    listener,
                    observer,
                    threads));
        }
    }
}
