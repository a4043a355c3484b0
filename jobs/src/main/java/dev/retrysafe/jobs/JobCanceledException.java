package dev.retrysafe.jobs;

/**
 * Thrown by {@link JobContext#checkpoint()} once a cancel was requested. A handler lets it
 * propagate and the job is recorded {@link JobStatus#CANCELED}. Thrown by a handler on its own,
 * without a requested cancel, it is an unexpected exception ({@code job-error}).
 */
public final class JobCanceledException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** An exception for a job whose cancel was requested. */
    public JobCanceledException() {
        super("the job's cancel was requested");
    }
}
