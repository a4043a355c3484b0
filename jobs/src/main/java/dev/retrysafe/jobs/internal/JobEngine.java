package dev.retrysafe.jobs.internal;

import dev.retrysafe.jobs.JobMetrics;
import dev.retrysafe.leasedwork.internal.LoopSettings;
import dev.retrysafe.leasedwork.internal.WorkLoop;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.List;

/**
 * The life of one {@code Jobs} instance: its {@link JobQueue}, and the engine's {@link WorkLoop}
 * over its {@link JobWork}, with three background threads (made by the configured factory,
 * virtual by default): the claim loop, the heartbeat (every third of the lease) and the purge. No
 * database connection is held while a handler runs. Threadsafe.
 *
 * <p>{@link #start()} starts the background threads; {@link #runDue()} and {@link #heartbeat()}
 * do one step synchronously instead (tests with a fake clock); {@link #close()} stops claiming,
 * lets running jobs finish within the shutdown timeout, then takes the rest away from their
 * handlers and hands their claims back, and stops the background threads last (the heartbeat
 * keeps the leases of finishing jobs alive until then).
 */
public final class JobEngine implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger("dev.retrysafe.jobs.Jobs");

    private final JobsConfig config;
    private final Counters counters;
    private final JobWork work;
    private final JobQueue queue;
    private final WorkLoop<Execution> loop;

    /** An engine with {@code config}, not started. */
    public JobEngine(JobsConfig config) {
        this.config = config;
        this.counters = new Counters(this::inFlight);
        this.work = new JobWork(config, counters, this::loop);
        this.queue = new JobQueue(config, counters, this::wakeUp, work::requestCancel);
        // every worker's end wakes the loop (ROUNDS): a freed worker may take a queued job at once
        this.loop = new WorkLoop<>(
                new LoopSettings(
                        "jobs " + config.instanceId(),
                        LOG,
                        config.workers(),
                        config.workers(),
                        WorkLoop.Rhythm.ROUNDS,
                        config.pollInterval(),
                        config.shutdownTimeout(),
                        config.threadFactory(),
                        config.threadFactory(),
                        List.of(
                                new LoopSettings.Upkeep(
                                        "heartbeat",
                                        Duration.ofNanos(config.lease().toNanos() / 3),
                                        false,
                                        this::heartbeat),
                                new LoopSettings.Upkeep("purge", config.purgeInterval(), true, this::purge))),
                work);
    }

    private WorkLoop<Execution> loop() {
        return loop;
    }

    private int inFlight() {
        return loop == null ? 0 : loop.inFlight();
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
        loop.start();
    }

    /** Makes the loop claim now rather than at its next poll. */
    public void wakeUp() {
        loop.wakeUp();
    }

    /** One claim round whose jobs run to their end before it returns; how many ran. */
    public int runDue() {
        return loop.runDue();
    }

    /** Extends the leases of this instance's running jobs and refreshes their cancel flags. */
    public void heartbeat() {
        work.heartbeat();
    }

    private void purge() {
        int purged = queue.purgeExpired();
        if (purged > 0) {
            LOG.log(Level.DEBUG, "jobs {0}: purged {1} expired result(s) and record(s)", config.instanceId(), purged);
        }
    }

    /**
     * Stops claiming, lets running jobs finish within the shutdown timeout, then takes the others
     * away (interrupted, claims handed back), then stops the background threads. Idempotent.
     */
    @Override
    public void close() {
        loop.close();
    }
}
