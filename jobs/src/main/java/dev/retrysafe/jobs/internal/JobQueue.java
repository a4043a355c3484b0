package dev.retrysafe.jobs.internal;

import dev.retrysafe.jobs.CancelResult;
import dev.retrysafe.jobs.Job;
import dev.retrysafe.jobs.JobPage;
import dev.retrysafe.jobs.JobStats;
import dev.retrysafe.jobs.JobStatus;
import dev.retrysafe.jobs.NewJob;
import dev.retrysafe.jobs.ResultLookup;
import java.io.IOException;
import java.io.OutputStream;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Optional;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * The operations of a job's owner and of the application: enqueue, read, cancel, download, purge,
 * statistics. Independent of this instance's workers, except that it wakes them and tells them of
 * a cancel at once. Threadsafe.
 */
public final class JobQueue {

    private final JobsConfig config;
    private final JobStore store;
    private final Counters counters;
    private final Runnable wakeUp;
    private final Consumer<String> cancelRequested;

    JobQueue(JobsConfig config, Counters counters, Runnable wakeUp, Consumer<String> cancelRequested) {
        this.config = config;
        this.store = new JobStore(config.dataSource(), config.listener());
        this.counters = counters;
        this.wakeUp = wakeUp;
        this.cancelRequested = cancelRequested;
    }

    private Instant now() {
        return Instant.ofEpochMilli(config.clock().millis());
    }

    /** Enqueues {@code job} in a transaction of its own and wakes the workers if they run that kind. */
    public Job enqueue(NewJob job) {
        Job queued = store.enqueue(job, now(), config.maxAttempts());
        if (config.handlers().containsKey(job.kind())) {
            wakeUp.run();
        }
        return queued;
    }

    /** Enqueues {@code job} in the caller's transaction. */
    public Job enqueue(Connection transaction, NewJob job) throws SQLException {
        return store.insert(transaction, job, now(), config.maxAttempts());
    }

    /** The owner's job {@code id}. */
    public Optional<Job> find(String owner, String id) {
        return store.find(owner, id, now());
    }

    /** A page of the owner's jobs, newest first; empty if {@code startingAfter} is not one of them. */
    public Optional<JobPage> list(String owner, @Nullable String startingAfter, int limit) {
        return store.list(owner, startingAfter, limit, now());
    }

    /** Cancels the owner's job {@code id} as far as its state allows. */
    public CancelResult cancel(String owner, String id) {
        JobStore.Canceling canceling = store.cancel(owner, id, now());
        if (canceling.canceled()) {
            counters.finished(JobStatus.CANCELED);
        }
        if (canceling.result() instanceof CancelResult.CancelRequested requested) {
            // a job running here sees the cancel at its next checkpoint, without waiting for a heartbeat
            cancelRequested.accept(requested.job().id());
        }
        if (canceling.changed()) {
            switch (canceling.result()) {
                case CancelResult.Canceled c -> Observers.tell(config.observer(), c.job());
                case CancelResult.CancelRequested r -> Observers.tell(config.observer(), r.job());
                default -> {
                    // nothing changed
                }
            }
        }
        return canceling.result();
    }

    /** Whether the owner's job {@code id} has a downloadable result. */
    public ResultLookup result(String owner, String id) {
        Optional<Job> found = find(owner, id);
        if (found.isEmpty()) {
            return new ResultLookup.NotFound();
        }
        Job job = found.get();
        String contentType = job.resultContentType();
        if (job.status() != JobStatus.SUCCEEDED || contentType == null) {
            return new ResultLookup.NotReady(job);
        }
        if (job.resultExpired()) {
            return new ResultLookup.Expired(job);
        }
        return new ResultLookup.Ready(job, contentType, job.resultSize());
    }

    /** Copies the owner's downloadable result to {@code out}; false if there is none now. */
    public boolean writeResult(String owner, String id, OutputStream out) throws IOException {
        return store.writeResult(owner, id, now(), out);
    }

    /** Deletes expired results and old records; returns rows deleted. */
    public int purgeExpired() {
        Instant now = now();
        return store.purge(now, now.minus(config.recordRetention()));
    }

    /** The queue as stored. */
    public JobStats stats() {
        return store.stats(now());
    }
}
