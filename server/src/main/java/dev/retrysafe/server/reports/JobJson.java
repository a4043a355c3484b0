package dev.retrysafe.server.reports;

import dev.retrysafe.jobs.Job;
import dev.retrysafe.jobs.JobProblem;
import dev.retrysafe.jobs.JobRepresentation;
import dev.retrysafe.jobs.JobStatus;
import dev.retrysafe.server.http.ProblemType;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/** The API representation of a job, as {@code GET /v1/jobs/{id}} and the report events show it. */
final class JobJson {

    private JobJson() {}

    /** The job's path. */
    static String path(Job job) {
        return "/v1/jobs/" + job.id();
    }

    /** Whether its result can be downloaded now. */
    static boolean hasResult(Job job) {
        return job.status() == JobStatus.SUCCEEDED && !job.resultExpired();
    }

    static Map<String, @Nullable Object> of(Job job) {
        return JobRepresentation.of(job, path(job), JobJson::problem);
    }

    /** A job's failure as a problem details object, with the page of its type when the server has one. */
    private static Map<String, Object> problem(JobProblem error) {
        Map<String, Object> p = new LinkedHashMap<>();
        ProblemType type = ProblemType.bySlug(error.type()).orElse(ProblemType.JOB_ERROR);
        p.put("type", type.uri());
        p.put("title", type.slug().equals(error.type()) ? type.title() : error.title());
        // the members of every problem (Problem.MEMBERS), so a client reads a job's error as any other
        p.put("status", type.status());
        p.put("detail", error.detail());
        p.put("retryable", type.retryable());
        return p;
    }
}
