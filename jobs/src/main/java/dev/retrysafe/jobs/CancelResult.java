package dev.retrysafe.jobs;

/** What {@link Jobs#cancel(String, String)} did. Asking again gives the same kind of answer. */
public sealed interface CancelResult {

    /** No job with that id belongs to that owner. */
    record NotFound() implements CancelResult {}

    /**
     * The job is canceled: it was queued and is canceled now, or it had been canceled before.
     *
     * @param job the job, {@link JobStatus#CANCELED}
     */
    record Canceled(Job job) implements CancelResult {}

    /**
     * The job is running: its cancel is requested and its handler stops at its next checkpoint
     * (unless it finishes first, in which case its result stands).
     *
     * @param job the job, {@link JobStatus#RUNNING} with {@link Job#cancelRequested()}
     */
    record CancelRequested(Job job) implements CancelResult {}

    /**
     * The job had already succeeded or failed; nothing changed.
     *
     * @param job the job
     */
    record AlreadyFinished(Job job) implements CancelResult {}
}
