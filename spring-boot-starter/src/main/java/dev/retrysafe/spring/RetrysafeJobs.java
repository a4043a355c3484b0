package dev.retrysafe.spring;

import dev.retrysafe.jobs.CancelResult;
import dev.retrysafe.jobs.Job;
import dev.retrysafe.jobs.JobStoreException;
import dev.retrysafe.jobs.Jobs;
import dev.retrysafe.jobs.NewJob;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Objects;
import java.util.Optional;
import javax.sql.DataSource;
import org.springframework.context.SmartLifecycle;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * The job scheduler bean: the jobs module's {@link Jobs} over the application's data source, with
 * every {@link dev.retrysafe.jobs.JobHandler} bean registered for its {@link JobKind}, run as a
 * lifecycle bean (started with the context, closed gracefully when it stops: running jobs get the
 * shutdown timeout, then their claims are handed back).
 *
 * <p>{@link #enqueue} joins the application's Spring transaction when one is active (the job
 * exists if and only if the transaction commits, and the workers are woken after the commit), and
 * uses a transaction of its own otherwise. Answer the request with {@link JobAccepted#of(Job)}.
 * This class is threadsafe.
 */
public final class RetrysafeJobs implements SmartLifecycle {

    /** Before the web server's phases, so jobs stop after it. */
    public static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 4096;

    private final Jobs jobs;
    private final DataSource dataSource;
    private final boolean runWorkers;
    private volatile boolean running;

    /**
     * The scheduler over {@code jobs}, built on {@code dataSource}.
     *
     * @param runWorkers whether this instance runs jobs (false: it only enqueues and reads them)
     */
    public RetrysafeJobs(Jobs jobs, DataSource dataSource, boolean runWorkers) {
        this.jobs = Objects.requireNonNull(jobs, "jobs");
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        this.runWorkers = runWorkers;
    }

    /**
     * Enqueues a job of {@code kind} for {@code owner} with {@code params} (opaque text, JSON say),
     * in the current Spring transaction when there is one.
     *
     * @throws IllegalArgumentException for an owner, kind or params out of their rules
     * @throws JobStoreException        if the database fails
     */
    public Job enqueue(String owner, String kind, String params) {
        NewJob job = new NewJob(owner, kind, params);
        if (!TransactionSynchronizationManager.isActualTransactionActive()
                || !TransactionSynchronizationManager.isSynchronizationActive()) {
            return jobs.enqueue(job);
        }
        Connection connection = DataSourceUtils.getConnection(dataSource);
        try {
            if (!DataSourceUtils.isConnectionTransactional(connection, dataSource)) {
                return jobs.enqueue(job);
            }
            Job enqueued = jobs.enqueue(connection, job);
            TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
                @Override
                public void afterCommit() {
                    jobs.wakeUp();
                }
            });
            return enqueued;
        } catch (SQLException e) {
            throw new JobStoreException("enqueueing a job of kind " + kind + " failed", e);
        } finally {
            DataSourceUtils.releaseConnection(connection, dataSource);
        }
    }

    /** The owner's job, empty for an unknown id and for another owner's job alike. */
    public Optional<Job> find(String owner, String id) {
        return jobs.find(owner, id);
    }

    /** Cancels the owner's job (at once if queued, at its next checkpoint if running). */
    public CancelResult cancel(String owner, String id) {
        return jobs.cancel(owner, id);
    }

    /** The jobs module's API, for everything else (results, lists, purge, stats). */
    public Jobs jobs() {
        return jobs;
    }

    @Override
    public synchronized void start() {
        if (!running) {
            if (runWorkers) {
                jobs.start();
            }
            running = true;
        }
    }

    @Override
    public synchronized void stop() {
        if (running) {
            jobs.close();
            running = false;
        }
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    @Override
    public int getPhase() {
        return PHASE;
    }
}
