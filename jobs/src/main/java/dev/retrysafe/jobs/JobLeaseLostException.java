package dev.retrysafe.jobs;

/**
 * Thrown by {@link JobContext#checkpoint()} when this worker no longer owns the job: its lease ran
 * out and another worker took the job over, or its instance is closing and handed the job back.
 * A handler lets it propagate; nothing is recorded for this run.
 */
public final class JobLeaseLostException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** An exception for a worker that lost its claim. */
    public JobLeaseLostException() {
        super("this worker no longer holds the job's lease");
    }
}
