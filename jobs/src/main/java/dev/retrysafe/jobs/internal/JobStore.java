package dev.retrysafe.jobs.internal;

import dev.retrysafe.jobs.CancelResult;
import dev.retrysafe.jobs.Job;
import dev.retrysafe.jobs.JobListener;
import dev.retrysafe.jobs.JobPage;
import dev.retrysafe.jobs.JobStats;
import dev.retrysafe.jobs.JobStatus;
import dev.retrysafe.jobs.JobStoreException;
import dev.retrysafe.jobs.NewJob;
import dev.retrysafe.leasedwork.internal.Jdbc;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * The jobs as their owners see them: enqueue, read, cancel, download, and the purge and queue
 * statistics. Each operation is one auto-commit statement or one short transaction; a cancel locks
 * one job row. Threadsafe.
 */
final class JobStore {

    /**
     * The answer to a cancel, and what this call changed.
     *
     * @param result   the answer
     * @param canceled whether the job went from queued to canceled now
     * @param changed  whether this call changed the job (canceled it, or requested its cancel)
     */
    record Canceling(CancelResult result, boolean canceled, boolean changed) {}

    private final Jdbc jdbc;
    private final JobListener listener;

    JobStore(DataSource dataSource, JobListener listener) {
        this.jdbc = new Jdbc(dataSource, JobStoreException::new);
        this.listener = listener;
    }

    // --- enqueue and read --------------------------------------------------------------------

    /** Inserts {@code job}, queued, in the caller's transaction. */
    Job insert(Connection c, NewJob job, Instant now, int maxAttempts) throws SQLException {
        String id = JobIds.jobId();
        try (PreparedStatement s = c.prepareStatement(JobSql.INSERT)) {
            s.setString(1, id);
            s.setString(2, job.owner());
            s.setString(3, job.kind());
            s.setString(4, job.params());
            s.setLong(5, now.toEpochMilli());
            s.setLong(6, now.toEpochMilli());
            s.setInt(7, maxAttempts);
            s.executeUpdate();
        }
        return new Job(
                id,
                job.owner(),
                job.kind(),
                JobStatus.QUEUED,
                job.params(),
                now,
                null,
                null,
                0,
                0,
                maxAttempts,
                false,
                null,
                null,
                false,
                null,
                0);
    }

    /** Inserts {@code job} in a transaction of its own. */
    Job enqueue(NewJob job, Instant now, int maxAttempts) {
        return jdbc.autocommit("enqueue a job", c -> insert(c, job, now, maxAttempts));
    }

    /** The owner's job {@code id}. */
    Optional<Job> find(String owner, String id, Instant now) {
        return jdbc.autocommit("read a job", c -> find(c, JobSql.FIND, owner, id, now));
    }

    /**
     * A page of the owner's jobs, newest first, after the owner's job {@code startingAfter} when
     * given; empty if the owner has no such job.
     */
    Optional<JobPage> list(String owner, @Nullable String startingAfter, int limit, Instant now) {
        return jdbc.autocommit("list jobs", c -> {
            Optional<Job> cursor = Optional.empty();
            if (startingAfter != null) {
                cursor = find(c, JobSql.FIND, owner, startingAfter, now);
                if (cursor.isEmpty()) {
                    return Optional.<JobPage>empty();
                }
            }
            List<Job> jobs = new ArrayList<>();
            try (PreparedStatement s = c.prepareStatement(cursor.isEmpty() ? JobSql.LIST_FIRST : JobSql.LIST_AFTER)) {
                int i = 1;
                s.setString(i++, owner);
                if (cursor.isPresent()) {
                    long created = cursor.get().createdAt().toEpochMilli();
                    s.setLong(i++, created);
                    s.setLong(i++, created);
                    s.setString(i++, cursor.get().id());
                }
                s.setInt(i, limit + 1); // one more than asked tells whether more follow
                try (ResultSet r = s.executeQuery()) {
                    while (r.next()) {
                        jobs.add(JobRows.job(r, now));
                    }
                }
            }
            boolean hasMore = jobs.size() > limit;
            return Optional.of(new JobPage(hasMore ? jobs.subList(0, limit) : jobs, hasMore));
        });
    }

    private static Optional<Job> find(Connection c, String sql, String owner, String id, Instant now)
            throws SQLException {
        try (PreparedStatement s = c.prepareStatement(sql)) {
            s.setString(1, id);
            s.setString(2, owner);
            try (ResultSet r = s.executeQuery()) {
                return r.next() ? Optional.of(JobRows.job(r, now)) : Optional.empty();
            }
        }
    }

    // --- cancel ------------------------------------------------------------------------------

    /** Cancels the owner's job {@code id} as far as its state allows. */
    Canceling cancel(String owner, String id, Instant now) {
        return jdbc.transaction("cancel a job", c -> {
            Optional<Job> found = find(c, JobSql.FIND_FOR_UPDATE, owner, id, now);
            if (found.isEmpty()) {
                return new Canceling(new CancelResult.NotFound(), false, false);
            }
            Job job = found.get();
            return switch (job.status()) {
                case QUEUED -> {
                    Statements.update(c, JobSql.CANCEL_QUEUED, now.toEpochMilli(), id);
                    yield new Canceling(
                            new CancelResult.Canceled(Statements.announce(c, id, now, listener)), true, true);
                }
                case RUNNING -> {
                    boolean requestedNow = !job.cancelRequested();
                    if (requestedNow) {
                        Statements.update(c, JobSql.REQUEST_CANCEL, id);
                        job = Statements.byId(c, id, now);
                    }
                    yield new Canceling(new CancelResult.CancelRequested(job), false, requestedNow);
                }
                case CANCELED -> new Canceling(new CancelResult.Canceled(job), false, false);
                case SUCCEEDED, FAILED -> new Canceling(new CancelResult.AlreadyFinished(job), false, false);
            };
        });
    }

    // --- results, retention, statistics ------------------------------------------------------

    /**
     * Copies the owner's downloadable result of job {@code id} to {@code out}; false (nothing
     * written) if there is none now.
     */
    boolean writeResult(String owner, String id, Instant now, OutputStream out) throws IOException {
        try (Connection c = jdbc.autocommitConnection();
                PreparedStatement s = c.prepareStatement(JobSql.RESULT_BODY)) {
            s.setString(1, id);
            s.setString(2, owner);
            s.setLong(3, now.toEpochMilli());
            try (ResultSet r = s.executeQuery()) {
                if (!r.next()) {
                    return false;
                }
                try (InputStream body = r.getBinaryStream(1)) {
                    body.transferTo(out);
                }
                return true;
            }
        } catch (SQLException e) {
            throw new JobStoreException("read the result of a job failed", e);
        }
    }

    /**
     * Deletes result bytes past retention (their jobs say so) and finished jobs finished before
     * {@code recordCutoff} whose result, if any, expired. Returns rows deleted.
     */
    int purge(Instant now, Instant recordCutoff) {
        int results = jdbc.transaction("purge expired job results", c -> {
            Statements.update(c, JobSql.MARK_PURGED, now.toEpochMilli());
            return Statements.update(c, JobSql.DELETE_RESULTS, now.toEpochMilli());
        });
        int records = jdbc.autocommit(
                "purge old job records",
                c -> Statements.update(c, JobSql.DELETE_RECORDS, recordCutoff.toEpochMilli(), now.toEpochMilli()));
        return results + records;
    }

    /** Counts of queued and running jobs, and the age of the oldest queued one. */
    JobStats stats(Instant now) {
        return jdbc.autocommit("read job statistics", c -> {
            try (PreparedStatement s = c.prepareStatement(JobSql.STATS);
                    ResultSet r = s.executeQuery()) {
                r.next();
                long queued = r.getLong(1);
                long running = r.getLong(2);
                long oldest = r.getLong(3);
                Duration age = r.wasNull() ? null : Duration.ofMillis(Math.max(0, now.toEpochMilli() - oldest));
                return new JobStats(queued, running, age);
            }
        });
    }
}
