package dev.retrysafe.jobs;

import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * A job as an API shows it, the shape of the Retrysafe server's {@code GET /v1/jobs/{id}}: one
 * writer for the server, the Spring Boot starter and any application that serves jobs over HTTP.
 * The map keeps its members in order and holds only strings, numbers, booleans, {@code null} and
 * the error's map, ready for any JSON writer. Times are ISO-8601 instants. Stateless and
 * threadsafe.
 */
public final class JobRepresentation {

    private JobRepresentation() {}

    /**
     * The job's members, its error as {@link #problem(JobProblem)} shows it.
     *
     * @param path the job resource's path, under which {@code /result} is served
     */
    public static Map<String, @Nullable Object> of(Job job, String path) {
        return of(job, path, JobRepresentation::problem);
    }

    /**
     * The job's members, its error (when it has one) as {@code problem} shows it: an application
     * with problem pages of its own maps the error's type to them.
     *
     * @param path the job resource's path, under which {@code /result} is served
     */
    public static Map<String, @Nullable Object> of(
            Job job, String path, Function<JobProblem, ? extends @Nullable Object> problem) {
        boolean succeeded = job.status() == JobStatus.SUCCEEDED;
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
        m.put("result_url", succeeded && !job.resultExpired() ? path + "/result" : null);
        m.put("result_size", succeeded ? job.resultSize() : null);
        m.put("result_expires_at", time(job.resultExpiresAt()));
        m.put("result_expired", succeeded && job.resultExpired());
        m.put("error", job.error() == null ? null : problem.apply(job.error()));
        return m;
    }

    /** An error as its own members: {@code type}, {@code title}, {@code detail}. */
    public static Map<String, Object> problem(JobProblem error) {
        Map<String, Object> p = new LinkedHashMap<>();
        p.put("type", error.type());
        p.put("title", error.title());
        p.put("detail", error.detail());
        return p;
    }

    private static @Nullable String time(@Nullable Instant t) {
        return t == null ? null : DateTimeFormatter.ISO_INSTANT.format(t);
    }
}
