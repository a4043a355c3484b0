package dev.retrysafe.jobs;

/**
 * Told of a job's visible changes after they committed, for live views (a dashboard, a stream of
 * updates): this instance claimed it (now {@link JobStatus#RUNNING}), stored a higher progress,
 * recorded a cancel request, or ended it (any final state). Changes made by other instances are
 * told there, not here. Unlike {@link JobListener} it runs outside any transaction and cannot
 * veto anything: it is called on the thread that made the change, must return quickly, and what
 * it throws is logged and otherwise ignored. Must be threadsafe.
 */
@FunctionalInterface
public interface JobObserver {

    /**
     * {@code job} changed; the change is committed.
     *
     * @param job the job as it is after the change
     */
    void changed(Job job);
}
