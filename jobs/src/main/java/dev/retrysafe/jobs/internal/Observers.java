package dev.retrysafe.jobs.internal;

import dev.retrysafe.jobs.Job;
import dev.retrysafe.jobs.JobObserver;
import java.lang.System.Logger.Level;

/** Calls the {@link JobObserver}, so that a failing observer never disturbs a worker. Stateless. */
final class Observers {

    private static final System.Logger LOG = System.getLogger("dev.retrysafe.jobs.Jobs");

    private Observers() {}

    /** Tells {@code observer} of {@code job}, logging (not throwing) what it throws. */
    static void tell(JobObserver observer, Job job) {
        try {
            observer.changed(job);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "the job observer failed on job " + job.id() + "; ignored", e);
        }
    }

    /** {@code job} with {@code progress} as its stored progress. */
    static Job withProgress(Job job, int progress) {
        return new Job(
                job.id(),
                job.owner(),
                job.kind(),
                job.status(),
                job.params(),
                job.createdAt(),
                job.startedAt(),
                job.finishedAt(),
                progress,
                job.attempts(),
                job.maxAttempts(),
                job.cancelRequested(),
                job.error(),
                job.resultExpiresAt(),
                job.resultExpired(),
                job.resultContentType(),
                job.resultSize());
    }
}
