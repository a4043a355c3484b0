package dev.retrysafe.spring.internal;

import dev.retrysafe.jobs.Job;
import dev.retrysafe.jobs.JobProblem;
import dev.retrysafe.jobs.JobStatus;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/** A job in the shape of the Retrysafe server's {@code GET /v1/jobs/{id}}. Stateless. */
public final class JobJson {

    private JobJson() {}

    /** The job's fields; {@code path} is its resource's path, under which its result is served. */
    public static Map<String, @Nullable Object> of(Job job, String path) {
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
        m.put("error", problem(job.error()));
        return m;
    }

    private static @Nullable Map<String, Object> problem(@Nullable JobProblem error) {
        if (error == null) {
            return null;
        }
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
