package dev.retrysafe.server.reports;

import dev.retrysafe.jobs.Job;
import dev.retrysafe.jobs.JobProblem;
import dev.retrysafe.jobs.JobStatus;
import dev.retrysafe.server.http.ProblemType;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
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
        Map<String, @Nullable Object> m = new LinkedHashMap<>();
        m.put("id", job.id());
        m.put("object", "job");
        m.put("kind", job.kind());
        m.put("status", job.status().wireName());
        m.put("created_at", time(job.createdAt()));
        m.put("started_at", time(job.startedAt()));
        m.put("finished_at", time(job.finishedAt()));
        m.put("progress", job.progress());
        m.put("attempts", job.attempts());
        m.put("cancel_requested", job.cancelRequested());
        m.put("result_url", hasResult(job) ? path(job) + "/result" : null);
        m.put("result_size", job.status() == JobStatus.SUCCEEDED ? job.resultSize() : null);
        m.put("result_expires_at", time(job.resultExpiresAt()));
        m.put("result_expired", job.status() == JobStatus.SUCCEEDED && job.resultExpired());
        m.put("error", problem(job.error()));
        return m;
    }

    /** A job's failure as a problem details object, with the page of its type when the server has one. */
    private static @Nullable Map<String, Object> problem(@Nullable JobProblem error) {
        if (error == null) {
            return null;
        }
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

    private static @Nullable String time(@Nullable Instant t) {
        return t == null ? null : DateTimeFormatter.ISO_INSTANT.format(t);
    }
}
