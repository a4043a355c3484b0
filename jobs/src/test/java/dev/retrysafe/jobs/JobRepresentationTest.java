package dev.retrysafe.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The one writer of a job's API shape: members in order, the result's link only while it can be downloaded. */
class JobRepresentationTest {

    private static final Instant CREATED = Instant.parse("2026-12-07T10:00:00Z");
    private static final Instant FINISHED = Instant.parse("2026-12-07T10:00:05Z");

    private static Job job(JobStatus status, JobProblem error, boolean expired) {
        return new Job(
                "job_1",
                "acct_1",
                "payments_csv",
                status,
                "{}",
                CREATED,
                CREATED,
                FINISHED,
                status == JobStatus.SUCCEEDED ? 100 : 40,
                1,
                3,
                false,
                error,
                status == JobStatus.SUCCEEDED ? FINISHED.plusSeconds(3600) : null,
                expired,
                status == JobStatus.SUCCEEDED ? "text/csv" : null,
                status == JobStatus.SUCCEEDED ? 120 : 0);
    }

    @Test
    void aSucceededJobLinksItsResultUntilItExpires() {
        Map<String, Object> shown = JobRepresentation.of(job(JobStatus.SUCCEEDED, null, false), "/v1/jobs/job_1");

        assertThat(shown.keySet())
                .containsExactly(
                        "id",
                        "object",
                        "kind",
                        "status",
                        "created_at",
                        "started_at",
                        "finished_at",
                        "progress",
                        "attempts",
                        "cancel_requested",
                        "result_url",
                        "result_size",
                        "result_expires_at",
                        "result_expired",
                        "error");
        assertThat(shown)
                .containsEntry("status", "succeeded")
                .containsEntry("created_at", "2026-12-07T10:00:00Z")
                .containsEntry("result_url", "/v1/jobs/job_1/result")
                .containsEntry("result_size", 120L)
                .containsEntry("result_expired", false)
                .containsEntry("error", null);

        Map<String, Object> expired = JobRepresentation.of(job(JobStatus.SUCCEEDED, null, true), "/v1/jobs/job_1");
        assertThat(expired).containsEntry("result_url", null).containsEntry("result_expired", true);
    }

    @Test
    void aFailedJobShowsItsErrorAsTheCallerMapsIt() {
        JobProblem problem = new JobProblem("job-error", "The job failed", "IllegalStateException");
        Job failed = job(JobStatus.FAILED, problem, false);

        assertThat(JobRepresentation.of(failed, "/jobs/job_1"))
                .containsEntry("result_url", null)
                .containsEntry("result_size", null)
                .containsEntry(
                        "error",
                        Map.of("type", "job-error", "title", "The job failed", "detail", "IllegalStateException"));
        assertThat(JobRepresentation.of(failed, "/jobs/job_1", error -> "/problems/" + error.type()))
                .containsEntry("error", "/problems/job-error");
    }
}
