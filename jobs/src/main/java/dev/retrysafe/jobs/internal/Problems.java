package dev.retrysafe.jobs.internal;

import dev.retrysafe.jobs.JobProblem;

/** The problems this module records on its own. Stateless. */
final class Problems {

    private Problems() {}

    /** A job whose every claim lost its worker, {@code attempts} times. */
    static JobProblem workerLost(int attempts) {
        return new JobProblem(
                JobProblem.WORKER_LOST,
                "The job's workers were lost",
                "The job was started " + attempts + (attempts == 1 ? " time" : " times")
                        + " and its worker was lost each time (it stopped renewing its lease: crashed, hung or cut"
                        + " off from the database); it is not retried again.");
    }

    /**
     * A handler's unexpected exception, named by its class only: exception messages may hold
     * secrets (connection strings, customer data), and the problem is shown to the job's owner.
     */
    static JobProblem jobError(Throwable e) {
        String name = e.getClass().getSimpleName();
        return new JobProblem(
                JobProblem.JOB_ERROR,
                "The job failed",
                name.isEmpty() ? e.getClass().getName() : name);
    }
}
