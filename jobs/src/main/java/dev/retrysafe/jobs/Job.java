package dev.retrysafe.jobs;

import java.time.Instant;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A job as stored, read at one moment. Immutable.
 *
 * @param id                {@code job_} and 24 random URL-safe characters
 * @param owner             the tenant it belongs to
 * @param kind              which handler runs it
 * @param status            where it is in its life
 * @param params            the handler's input
 * @param createdAt         when it was enqueued
 * @param startedAt         when its current (or last) claim began; {@code null} while it never ran
 * @param finishedAt        when it reached a final state, or {@code null}
 * @param progress          0 to 100, as the handler reported it; 100 once succeeded
 * @param attempts          how many times a worker claimed it (a claim handed back on close does
 *                          not count)
 * @param maxAttempts       claims allowed before a job whose workers keep getting lost fails
 * @param cancelRequested   whether a cancel was asked for
 * @param error             why it failed, for {@link JobStatus#FAILED}
 * @param resultExpiresAt   when its result stops being downloadable, for {@link JobStatus#SUCCEEDED}
 * @param resultExpired     whether the result is gone: past {@code resultExpiresAt} by the clock of
 *                          the instance that read it, or already purged
 * @param resultContentType the result's media type, for {@link JobStatus#SUCCEEDED}
 * @param resultSize        the result's length in bytes (0 without a result)
 */
public record Job(
        String id,
        String owner,
        String kind,
        JobStatus status,
        String params,
        Instant createdAt,
        @Nullable Instant startedAt,
        @Nullable Instant finishedAt,
        int progress,
        int attempts,
        int maxAttempts,
        boolean cancelRequested,
        @Nullable JobProblem error,
        @Nullable Instant resultExpiresAt,
        boolean resultExpired,
        @Nullable String resultContentType,
        long resultSize) {

    /** Checks that the required values are present. */
    public Job {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(owner, "owner");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(params, "params");
        Objects.requireNonNull(createdAt, "createdAt");
    }
}
