package dev.retrysafe.jobs;

import java.util.Objects;

/**
 * A failure a handler declares: the job becomes {@link JobStatus#FAILED} with {@link #problem()}
 * and is never retried. The problem's detail is shown to the job's owner.
 */
public final class JobFailedException extends Exception {

    private static final long serialVersionUID = 1L;

    private final JobProblem problem;

    /** A failure described by {@code problem}. */
    public JobFailedException(JobProblem problem) {
        super(Objects.requireNonNull(problem, "problem").type() + ": " + problem.title());
        this.problem = problem;
    }

    /** What the job's record will say. */
    public JobProblem problem() {
        return problem;
    }
}
