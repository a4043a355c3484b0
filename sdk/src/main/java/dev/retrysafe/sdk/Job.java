package dev.retrysafe.sdk;

import java.time.Instant;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * An asynchronous job, such as a report being built ({@code GET /v1/jobs/{id}}).
 * Immutable and threadsafe.
 *
 * @param id {@code job_...}
 * @param kind what it builds, such as {@code payments_csv}
 * @param status where it is
 * @param createdAt when it was accepted
 * @param startedAt when a worker started it, or {@code null}
 * @param finishedAt when it finished, or {@code null}
 * @param progress how far it is in percent, 0 to 100 (100 once succeeded), or {@code null} when not reported
 * @param cancelRequested whether a cancel was asked for while it ran (it stops at its next checkpoint)
 * @param resultUrl the path of its result once it succeeded, or {@code null}
 * @param error why it failed, or {@code null}
 */
public record Job(
        String id,
        String kind,
        JobStatus status,
        Instant createdAt,
        @Nullable Instant startedAt,
        @Nullable Instant finishedAt,
        @Nullable Integer progress,
        boolean cancelRequested,
        @Nullable String resultUrl,
        @Nullable Problem error) {

    /** Checks that the required values are there. */
    public Job {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(createdAt, "createdAt");
    }

    /** Whether the job will not change any more. */
    public boolean finished() {
        return status.finished();
    }
}
