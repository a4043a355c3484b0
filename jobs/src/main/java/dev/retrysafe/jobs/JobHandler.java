package dev.retrysafe.jobs;

/**
 * Runs the jobs of one kind. Called on a virtual thread of its own per job; must be threadsafe
 * when jobs of its kind run at once.
 *
 * <p>How its end is recorded: a returned {@link JobOutput} makes the job {@link JobStatus#SUCCEEDED}
 * (even if a cancel was requested meanwhile: finished work is kept); a {@link JobFailedException}
 * makes it {@link JobStatus#FAILED} with the exception's problem; a {@link JobCanceledException}
 * from a checkpoint makes it {@link JobStatus#CANCELED}; a {@link JobLeaseLostException} records
 * nothing (another worker owns the job now); any other exception makes it {@code FAILED} with the
 * problem {@code job-error} naming only the exception's class (messages may hold secrets). Failures
 * are never retried: only a lost worker leads to another run, so a handler must tolerate running
 * again after a partial run of its own. An exception caused by the database being unreachable (a
 * connection that cannot be had or broke, SQLSTATE class 08, a server shutting down or starting
 * up; anywhere in the cause chain) counts as a lost worker, not a failure: nothing is recorded, and
 * the job runs again once its lease ran out, until its attempts are spent.
 */
@FunctionalInterface
public interface JobHandler {

    /**
     * Does the job's work.
     *
     * @param context the job, progress reporting and checkpoints
     * @return the result to store
     * @throws JobFailedException for a failure the handler chose and explains
     * @throws Exception          for anything unexpected (recorded as {@code job-error})
     */
    JobOutput run(JobContext context) throws Exception;
}
