package dev.retrysafe.jobs.internal;

import dev.retrysafe.common.DatabaseOutages;
import dev.retrysafe.jobs.Job;
import dev.retrysafe.jobs.JobCanceledException;
import dev.retrysafe.jobs.JobFailedException;
import dev.retrysafe.jobs.JobLeaseLostException;
import dev.retrysafe.jobs.JobOutput;
import dev.retrysafe.jobs.JobProblem;
import dev.retrysafe.jobs.JobStatus;
import dev.retrysafe.jobs.internal.JobsConfig.Registration;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.time.Instant;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Runs one claimed job on its worker's thread: the handler, its result spooled, then the outcome
 * recorded once, unless the lease was lost or {@code close()} took the run away. A handler that
 * failed because the database could not be reached, and whatever goes wrong while recording
 * (database, listener), leave the job to its lease: it runs again once the lease ran out, as after
 * a lost worker, counting an attempt. Threadsafe.
 */
final class JobRunner {

    private static final System.Logger LOG = System.getLogger("dev.retrysafe.jobs.Jobs");

    private final JobsConfig config;
    private final LeaseStore leases;
    private final Counters counters;

    JobRunner(JobsConfig config, LeaseStore leases, Counters counters) {
        this.config = config;
        this.leases = leases;
        this.counters = counters;
    }

    /** Runs the handler, then records its outcome unless the run was taken away. */
    void run(Execution execution, Registration registration) {
        String id = execution.job().id();
        try (Spool spool = new Spool()) {
            Outcome outcome = run(execution, registration, spool);
            if (outcome == null) {
                return; // the lease is lost, or the database: nothing to record
            }
            if (!execution.beginCompleting()) {
                return; // close() took the run away and hands the claim back
            }
            Instant now = Instant.ofEpochMilli(config.clock().millis());
            Optional<Job> recorded;
            try {
                recorded = switch (outcome) {
                    case Outcome.Succeeded s ->
                        leases.succeed(
                                id, execution.token(), now, s.contentType(), spool, now.plus(config.resultRetention()));
                    case Outcome.Ended e -> leases.end(id, execution.token(), now, e.status(), e.problem());
                };
            } catch (RuntimeException e) {
                LOG.log(
                        Level.WARNING,
                        "jobs " + config.instanceId() + ": recording the end of job " + id
                                + " failed (database or listener); it runs again once its lease runs out",
                        e);
                return;
            }
            if (recorded.isPresent()) {
                counters.finished(recorded.get().status());
                Observers.tell(config.observer(), recorded.get());
            } else {
                LOG.log(
                        Level.INFO,
                        "jobs {0}: job {1} was taken over by another worker; this run is discarded",
                        config.instanceId(),
                        id);
            }
        } catch (IOException e) {
            LOG.log(
                    Level.WARNING,
                    "jobs " + config.instanceId() + ": could not delete the spooled result of job " + id,
                    e);
        }
    }

    /** What a handler's run came to. */
    private sealed interface Outcome {
        /** A result, spooled. */
        record Succeeded(String contentType) implements Outcome {}

        /** Failed or canceled. */
        record Ended(JobStatus status, @Nullable JobProblem problem) implements Outcome {}
    }

    /**
     * Runs the handler and writes its result to {@code spool}; null if the lease was lost, or if the
     * handler failed because the database could not be reached: a PostgreSQL restart under a
     * report is no fault of the job, and the run could not record its failure anyway.
     */
    private @Nullable Outcome run(Execution execution, Registration registration, Spool spool) {
        try {
            JobOutput output = registration.handler().run(execution);
            if (output == null) {
                throw new IllegalStateException("the handler returned no JobOutput");
            }
            output.writeTo(spool.output());
            spool.finish();
            return new Outcome.Succeeded(output.contentType());
        } catch (JobFailedException e) {
            return new Outcome.Ended(JobStatus.FAILED, e.problem());
        } catch (JobLeaseLostException e) {
            return null;
        } catch (JobCanceledException e) {
            return execution.cancelSeen()
                    ? new Outcome.Ended(JobStatus.CANCELED, null)
                    : new Outcome.Ended(JobStatus.FAILED, Problems.jobError(e));
        } catch (Exception e) {
            if (DatabaseOutages.causedBy(e)) {
                LOG.log(
                        Level.WARNING,
                        "jobs {0}: job {1} could not reach the database ({2}); it runs again once its lease runs out",
                        config.instanceId(),
                        execution.job().id(),
                        e.getClass().getSimpleName());
                return null;
            }
            return new Outcome.Ended(JobStatus.FAILED, Problems.jobError(e));
        }
    }
}
