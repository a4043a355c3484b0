package dev.retrysafe.jobs.internal;

import dev.retrysafe.jobs.JobMetrics;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The life of one {@code Jobs} instance: its {@link JobQueue}, its {@link WorkerPool}, and three
 * background threads (made by the configured factory, virtual by default): the claim loop, the
 * heartbeat (every third of the lease) and the purge. No database connection is held while a
 * handler runs. Threadsafe.
 *
 * <p>{@link #start()} starts the background threads; {@link #runDue()} and {@link #heartbeat()}
 * do one step synchronously instead (tests with a fake clock); {@link #close()} stops claiming,
 * lets running jobs finish within the shutdown timeout, then takes the rest away from their
 * handlers and hands their claims back, and stops the background threads last (the heartbeat
 * keeps the leases of finishing jobs alive until then).
 */
public final class JobEngine implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger("dev.retrysafe.jobs.Jobs");
    /** How long {@code close()} waits for a background thread to end its current step. */
    private static final Duration STOP_DEADLINE = Duration.ofSeconds(30);

    private final JobsConfig config;
    private final Counters counters;
    private final WorkerPool pool;
    private final JobQueue queue;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition wake = lock.newCondition();
    private final Condition tick = lock.newCondition();
    private final List<Thread> background = new ArrayList<>();
    private boolean wakeRequested;
    private boolean maintenanceStopped;
    private volatile boolean closing;

    /** An engine with {@code config}, not started. */
    public JobEngine(JobsConfig config) {
        this.config = config;
        Map<String, Execution> running = new ConcurrentHashMap<>();
        this.counters = new Counters(running::size);
        this.pool = new WorkerPool(config, counters, running, this::wakeUp);
        this.queue = new JobQueue(config, counters, this::wakeUp, pool::requestCancel);
    }

    /** Enqueue, read, cancel, download, purge, statistics. */
    public JobQueue queue() {
        return queue;
    }

    /** This instance's counters. */
    public JobMetrics metrics() {
        return counters;
    }

    /** Starts the claim loop, the heartbeat and the purge. */
    public void start() {
        lock.lock();
        try {
            if (closing) {
                throw new IllegalStateException("jobs " + config.instanceId() + " are closed");
            }
            if (!background.isEmpty()) {
                throw new IllegalStateException("jobs " + config.instanceId() + " are already started");
            }
            for (Runnable loop : List.<Runnable>of(this::claimLoop, this::heartbeatLoop, this::purgeLoop)) {
                Thread thread = config.threadFactory().newThread(loop);
                if (thread == null) {
                    throw new IllegalStateException("the thread factory of jobs " + config.instanceId()
                            + " made no thread");
                }
                background.add(thread);
            }
            background.forEach(Thread::start);
        } finally {
            lock.unlock();
        }
    }

    /** Makes the loop claim now rather than at its next poll. */
    public void wakeUp() {
        lock.lock();
        try {
            wakeRequested = true;
            wake.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** One claim round whose jobs run to their end before it returns; how many ran. */
    public int runDue() {
        if (closing) {
            throw new IllegalStateException("jobs " + config.instanceId() + " are closed");
        }
        List<Execution> started = pool.claimRound();
        for (Execution execution : started) {
            try {
                execution.done().get();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for jobs to run", e);
            } catch (ExecutionException e) {
                throw new IllegalStateException("a worker failed unexpectedly", e.getCause());
            }
        }
        return started.size();
    }

    /** Extends the leases of this instance's running jobs and refreshes their cancel flags. */
    public void heartbeat() {
        pool.heartbeat();
    }

    /**
     * Stops claiming, lets running jobs finish within the shutdown timeout, then takes the others
     * away (interrupted, claims handed back), then stops the background threads. Idempotent.
     */
    @Override
    public void close() {
        List<Thread> threads;
        lock.lock();
        try {
            if (closing) {
                return;
            }
            closing = true;
            wake.signalAll();
            threads = List.copyOf(background);
        } finally {
            lock.unlock();
        }
        if (!threads.isEmpty()) {
            join(threads.getFirst()); // the claim loop ends its round and stops
        }
        pool.stopClaiming();
        if (!pool.awaitIdle(config.shutdownTimeout())) {
            pool.abandonRunning();
        }
        lock.lock();
        try {
            maintenanceStopped = true;
            tick.signalAll();
        } finally {
            lock.unlock();
        }
        threads.forEach(this::join);
    }

    private void join(Thread thread) {
        try {
            if (!thread.join(STOP_DEADLINE)) {
                LOG.log(Level.WARNING, "jobs {0}: thread {1} did not stop within {2}", config.instanceId(),
                        thread.getName(), STOP_DEADLINE);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    // --- background loops --------------------------------------------------------------------

    private void claimLoop() {
        while (!closing) {
            int claimed = 0;
            try {
                claimed = pool.claimRound().size();
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "jobs " + config.instanceId() + ": claiming failed; trying again in "
                        + config.pollInterval(), e);
            }
            if (claimed > 0 && pool.hasFreeWorker()) {
                continue; // more may be due right away
            }
            lock.lock();
            try {
                if (!wakeRequested && !closing) {
                    wake.awaitNanos(config.pollInterval().toNanos());
                }
                wakeRequested = false;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } finally {
                lock.unlock();
            }
        }
    }

    private void heartbeatLoop() {
        long interval = config.lease().toNanos() / 3;
        while (pause(interval)) {
            try {
                heartbeat();
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "jobs " + config.instanceId() + ": heartbeat failed; trying again in "
                        + Duration.ofNanos(interval), e);
            }
        }
    }

    private void purgeLoop() {
        do {
            try {
                int purged = queue.purgeExpired();
                if (purged > 0) {
                    LOG.log(Level.DEBUG, "jobs {0}: purged {1} expired result(s) and record(s)", config.instanceId(),
                            purged);
                }
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "jobs " + config.instanceId() + ": purge failed; trying again in "
                        + config.purgeInterval(), e);
            }
        } while (pause(config.purgeInterval().toNanos()));
    }

    /** Waits {@code nanos} (monotonic time); false once the background threads must stop. */
    private boolean pause(long nanos) {
        long deadline = System.nanoTime() + nanos;
        lock.lock();
        try {
            while (!maintenanceStopped) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return true;
                }
                tick.awaitNanos(left);
            }
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } finally {
            lock.unlock();
        }
    }
}
